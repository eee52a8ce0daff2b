import type { Dirent } from "node:fs";
import { opendir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isInside } from "@textide/shared/node";

export interface WalkEntry {
  /** Absolute path as walked (inside the root's real path). */
  abs: string;
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  /** For symlinks that were followed: what the target is. */
  targetType?: "file" | "directory";
}

export interface WalkOptions {
  rootReal: string;
  /** Directory names never descended into (`.git`, `node_modules`). */
  skipDirs: ReadonlySet<string>;
  maxDepth?: number;
  concurrency?: number;
  signal?: AbortSignal;
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
  const concurrency = opts.concurrency ?? 8;
  let seen = 0;
  let stopped = false;

  const handleDir = async (dir: string, depth: number): Promise<void> => {
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      return; // Unreadable directory: skip it, as `rg` does.
    }
    for await (const dirent of handle) {
      if (stopped) break;
      seen++;
      const entry = await toEntry(dir, dirent, opts.rootReal);
      if (!entry) continue;
      if (visit(entry, depth) === false) {
        stopped = true;
        break;
      }
      const isDir = entry.type === "directory" || entry.targetType === "directory";
      if (!isDir || opts.skipDirs.has(dirent.name)) continue;
      if (opts.maxDepth !== undefined && depth >= opts.maxDepth) continue;
      const real = entry.type === "symlink" ? await realpath(entry.abs).catch(() => undefined) : entry.abs;
      if (real === undefined || visited.has(real)) continue; // symlink cycles
      visited.add(real);
      queue.push({ dir: real, depth: depth + 1 });
    }
  };

  const workers: Promise<void>[] = [];
  const inFlight = new Set<Promise<void>>();
  while (!stopped && (queue.length > 0 || inFlight.size > 0)) {
    if (opts.signal?.aborted) break;
    while (queue.length > 0 && inFlight.size < concurrency) {
      const next = queue.shift()!;
      const p: Promise<void> = handleDir(next.dir, next.depth).finally(() => inFlight.delete(p));
      inFlight.add(p);
      workers.push(p);
    }
    if (inFlight.size > 0) await Promise.race(inFlight);
  }
  await Promise.allSettled(workers);
  return seen;
}

async function toEntry(dir: string, dirent: Dirent, rootReal: string): Promise<WalkEntry | undefined> {
  const abs = path.join(dir, dirent.name);
  if (dirent.isFile()) return { abs, name: dirent.name, type: "file" };
  if (dirent.isDirectory()) return { abs, name: dirent.name, type: "directory" };
  if (!dirent.isSymbolicLink()) return { abs, name: dirent.name, type: "other" };
  // Security: a link is followed only when its target stays inside the root.
  const real = await realpath(abs).catch(() => undefined);
  if (real === undefined || !isInside(rootReal, real)) return undefined;
  const s = await stat(real).catch(() => undefined);
  if (!s || !(s.isFile() || s.isDirectory())) return undefined;
  return { abs, name: dirent.name, type: "symlink", targetType: s.isDirectory() ? "directory" : "file" };
}
