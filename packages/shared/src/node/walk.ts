import type { Dirent } from "node:fs";
import path from "node:path";
import { ATOMIC_TEMP_RE } from "./atomic-write.js";
import { readdirInside, statInside } from "./dir-handle.js";
import { LOCK_RE } from "./entry-lock.js";

/** Folder names no walk descends into and no listing shows. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Names that the IDE's listings and its watcher hide: skipped folders, atomic-write temps, entry locks. */
export function isHiddenName(name: string): boolean {
  return SKIPPED_DIRS.has(name) || ATOMIC_TEMP_RE.test(name) || LOCK_RE.test(name);
}

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
  /**
   * Descend into symlinks to folders inside the root (default true). Walks that key entries by path turn
   * it off: the entries below a followed link carry the target's folder, not the link's path.
   */
  followDirLinks?: boolean;
  /** Asked for each folder (absolute parent, name) before descending; false skips everything below it. */
  descendInto?: (dir: string, name: string) => boolean;
}

/**
 * Walks a tree once, breadth-first with a few directory reads in flight. Each directory is opened
 * and checked by its descriptor before it is read, and entries are looked up through it, so a
 * folder swapped for a symlink to outside the root during the walk is refused, not listed.
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
    // Unreadable directories (and ones that no longer lie inside the root) are skipped, as `rg` does.
    const listed = await readdirInside(dir, opts.rootReal);
    if (!listed) return;
    try {
      handleEntries(listed.dir.real, listed.dirents, depth, (name) => listed.dir.at(name));
    } finally {
      listed.dir.close();
    }
  };

  const handleEntries = (dir: string, dirents: Dirent[], depth: number, at: (name: string) => string): void => {
    if (opts.ordered) dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const descend = opts.maxDepth === undefined || depth < opts.maxDepth;
    const into = (name: string): boolean =>
      descend && !opts.skipDirs.has(name) && (opts.descendInto?.(dir, name) ?? true);
    for (const d of dirents) {
      if (stopped) return;
      seen++;
      let entry: WalkEntry;
      if (d.isFile()) entry = { dir, name: d.name, type: "file" };
      else if (d.isDirectory()) entry = { dir, name: d.name, type: "directory" };
      else if (d.isSymbolicLink()) {
        const followed = followLink(at(d.name), opts.rootReal);
        if (!followed) continue;
        entry = { dir, name: d.name, type: "symlink", targetType: followed.type };
        const follow = followed.type === "directory" && opts.followDirLinks !== false && into(d.name);
        if (follow && !visited.has(followed.real)) {
          visited.add(followed.real); // symlink cycles end here
          queue.push({ dir: followed.real, depth: depth + 1 });
        }
      } else entry = { dir, name: d.name, type: "other" };
      if (visit(entry, depth) === false) {
        stopped = true;
        return;
      }
      if (entry.type === "directory" && into(d.name)) {
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

/** Security: a link is followed only when the inode it reaches lies inside the root. */
function followLink(at: string, rootReal: string): { real: string; type: "file" | "directory" } | undefined {
  const target = statInside(at, rootReal);
  if (!target || !(target.stats.isFile() || target.stats.isDirectory())) return undefined;
  return { real: target.real, type: target.stats.isDirectory() ? "directory" : "file" };
}
