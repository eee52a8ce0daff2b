/** Resolving links found in workspace files (Markdown links, Vega-Lite data URLs) to workspace paths. */

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The workspace path a link in `fromFile` points to, or undefined when it is not a workspace link
 * (a URL with a scheme, `//host`, a bare `#fragment`, or a path that climbs above the workspace).
 * A leading `/` means the workspace root; query and fragment are dropped.
 */
export function resolveWorkspaceLink(href: string, fromFile: string): string | undefined {
  const link = href.trim();
  if (link === "" || link.startsWith("#") || link.startsWith("//") || SCHEME.test(link)) return undefined;
  let target = link.split(/[?#]/, 1)[0] ?? "";
  try {
    target = decodeURIComponent(target);
  } catch {
    // A stray `%` is a literal character in a file name.
  }
  if (target === "") return undefined;
  const base = target.startsWith("/") ? [] : fromFile.split("/").slice(0, -1);
  const parts = [...base];
  for (const seg of target.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length ? parts.join("/") : undefined;
}
