/** True when `p` is `base` or lies below it (workspace paths, `/` separators). */
export function isAtOrBelow(p: string, base: string): boolean {
  return p === base || p.startsWith(`${base}/`);
}

/** `p` after `from` was renamed to `to` (unchanged when `p` is not at or below `from`). */
export function movedPath(p: string, from: string, to: string): string {
  return isAtOrBelow(p, from) ? to + p.slice(from.length) : p;
}

/** Every folder above `p`: `a/b/c.txt` → `["a", "a/b"]`. */
export function ancestorsOf(p: string): string[] {
  const parts = p.split("/");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}

/** `a/b` + `c.txt` → `a/b/c.txt`; the top folder is "". */
export function joinPath(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}
