import path from "node:path";

/** True when `child` is `parent` or lies below it, with a separator boundary (`/a/root2` is not in `/a/root`). */
export function isInside(parent: string, child: string): boolean {
  const rel = relativeBelow(parent, child);
  if (rel !== undefined) return true;
  if (isPlainAbsolute(parent) && isPlainAbsolute(child)) return false;
  const r = path.relative(parent, child);
  return r === "" || (r !== ".." && !r.startsWith(`..${path.sep}`) && !path.isAbsolute(r));
}

/**
 * A POSIX absolute path with no `.`/`..` segment (nor any name starting with a dot), no doubled and
 * no trailing separator: `path.resolve` would return it unchanged, so prefix tests on it are exact.
 * The policy runs on every call and `path.relative` resolves both sides each time; this is the
 * common case (realpaths and joined candidates) answered without it.
 */
function isPlainAbsolute(p: string): boolean {
  return (
    path.sep === "/" &&
    p.charCodeAt(0) === 47 &&
    !p.includes("//") &&
    !p.includes("/.") &&
    (p.length === 1 || p.charCodeAt(p.length - 1) !== 47)
  );
}

/** `child` relative to `parent` ("" for the same path) when both are plain and child lies inside; else undefined. */
export function relativeBelow(parent: string, child: string): string | undefined {
  if (!isPlainAbsolute(parent) || !isPlainAbsolute(child)) return undefined;
  if (child === parent) return "";
  if (parent === "/") return child.slice(1);
  return child.length > parent.length && child.charCodeAt(parent.length) === 47 && child.startsWith(parent)
    ? child.slice(parent.length + 1)
    : undefined;
}
