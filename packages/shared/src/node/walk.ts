import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isInside } from "@textide/shared/node";

export interface WalkEntry {
  /** Directory the entry is in (absolute, inside the root's real path). */
  dir: string;
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  /** For symlinks that were followed: what the target is. */
  targetType?: "file" | "directory";
}

/** Absolute path of an entry; computed on demand because most entries are only name-tested. */
export const entryPath = (e: WalkEntry): string => path.join(e.dir, e.name);

export interface WalkOptions {
  rootReal: string;
  /** Directory names never descended into (`.git`, `node_modules`). */
  skipDirs: ReadonlySet<string>;
  maxDepth?: number;
  concurrency?: number;
  /**
   * Visit in a stable order: one directory at a time, entries by name, shallower first. For walks that
   * stop early, so the same tree always yields the same first entries.
   */
  ordered?: boolean;
}

/**
 * Walks a tree once, breadth-first with a few directory reads in flight. Containment is checked
 * per symlink only: a plain child of a directory inside the root is inside it by construction.
 * `visit` returns false to stop the walk early. Returns the number of entries seen.
 */
export async function walk(
  startReal: string,
  opts: WalkOptions,
  visit: (entry: WalkEntry, depth: number) => boolean | void,
): Promise<number> {
  const visited = new Set<string>([startReal]);
  const queue: { dir: string; depth: number }[] = [{ dir: startReal, depth: 1 }];
  const concurrency = opts.ordered ? 1 : (opts.concurrency ?? 8);
  let seen = 0;
  let stopped = false;

  const handleDir = async (dir: string, depth: number): Promise<void> => {
    // Unreadable directories are skipped, as `rg` does.
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => []);
    if (opts.ordered) dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const descend = opts.maxDepth === undefined || depth < opts.maxDepth;
    for (const d of dirents) {
      if (stopped) return;
      seen++;
      let entry: WalkEntry;
      if (d.isFile()) entry = { dir, name: d.name, type: "file" };
      else if (d.isDirectory()) entry = { dir, name: d.name, type: "directory" };
      else if (d.isSymbolicLink()) {
        const followed = await followLink(path.join(dir, d.name), opts.rootReal);
        if (!followed) continue;
        entry = { dir, name: d.name, type: "symlink", targetType: followed.type };
        if (followed.type === "directory" && descend && !opts.skipDirs.has(d.name) && !visited.has(followed.real)) {
          visited.add(followed.real); // symlink cycles end here
          queue.push({ dir: followed.real, depth: depth + 1 });
        }
      } else entry = { dir, name: d.name, type: "other" };
      if (visit(entry, depth) === false) {
        stopped = true;
        return;
      }
      if (entry.type === "directory" && descend && !opts.skipDirs.has(d.name)) {
        queue.push({ dir: path.join(dir, d.name), depth: depth + 1 });
      }
    }
  };

  const inFlight = new Set<Promise<void>>();
  while (!stopped && (queue.length > 0 || inFlight.size > 0)) {
    while (queue.length > 0 && inFlight.size < concurrency) {
      const next = queue.shift()!;
      const p: Promise<void> = handleDir(next.dir, next.depth).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    if (inFlight.size > 0) await Promise.race(inFlight);
  }
  await Promise.allSettled(inFlight);
  return seen;
}

/** Security: a link is followed only when its target stays inside the root. */
async function followLink(
  abs: string,
  rootReal: string,
): Promise<{ real: string; type: "file" | "directory" } | undefined> {
  const real = await realpath(abs).catch(() => undefined);
  if (real === undefined || !isInside(rootReal, real)) return undefined;
  const s = await stat(real).catch(() => undefined);
  if (!s || !(s.isFile() || s.isDirectory())) return undefined;
  return { real, type: s.isDirectory() ? "directory" : "file" };
}
