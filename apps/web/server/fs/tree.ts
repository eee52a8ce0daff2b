import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ROOT, type TreeEntry, type TreeEntryType as EntryType } from "@textide/shared";
import { isInside, type PathPolicy, type Root, ATOMIC_TEMP_RE } from "@textide/shared/node";

/** Directory names never listed nor watched. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

export type { TreeEntry, TreeEntryType as EntryType } from "@textide/shared";

export interface TreeOptions {
  depth: number;
  maxEntries: number;
}

/** True for names that listings and the watcher hide. */
export function isHiddenName(name: string): boolean {
  return SKIPPED_DIRS.has(name) || ATOMIC_TEMP_RE.test(name);
}

/**
 * Lists `abs` (a directory already accepted by the policy) to `depth` levels, with `lstat`.
 * Symlinks are never followed while walking; a link's target is described only when it stays
 * inside the link's root.
 */
export async function listTree(
  policy: PathPolicy,
  root: Root,
  abs: string,
  opts: TreeOptions,
): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
  const budget = { left: opts.maxEntries, truncated: false };
  const entries = await walk(policy, root, abs, opts.depth, budget);
  // The project root's listing also offers the assets root, which lives elsewhere on disk.
  if (root.name === ROOT.project && abs === root.real) {
    for (const other of policy.roots) {
      if (other.name === ROOT.project) continue;
      const shadowed = entries.findIndex((e) => e.name === other.name);
      if (shadowed >= 0) entries.splice(shadowed, 1);
      const s = await stat(other.real);
      const children = opts.depth > 1 ? await walk(policy, other, other.real, opts.depth - 1, budget) : undefined;
      entries.push({
        name: other.name,
        path: other.name,
        type: "directory",
        size: s.size,
        mtime: s.mtime.toISOString(),
        ...(children ? { children } : {}),
      });
    }
  }
  return { entries, truncated: budget.truncated };
}

async function walk(
  policy: PathPolicy,
  root: Root,
  dir: string,
  depth: number,
  budget: { left: number; truncated: boolean },
): Promise<TreeEntry[]> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  dirents.sort((a, b) => a.name.localeCompare(b.name));
  const out: TreeEntry[] = [];
  for (const d of dirents) {
    if (isHiddenName(d.name)) continue;
    if (budget.left <= 0) {
      budget.truncated = true;
      break;
    }
    budget.left--;
    const abs = path.join(dir, d.name);
    let s: Stats;
    try {
      s = await lstat(abs);
    } catch {
      continue; // vanished between readdir and lstat
    }
    const entry: TreeEntry = { name: d.name, path: policy.display(root, abs), type: typeOf(s) };
    if (s.isSymbolicLink()) {
      const target = await insideTarget(root, abs);
      if (target) {
        entry.targetType = target.isDirectory() ? "directory" : "file";
        entry.size = target.size;
        entry.mtime = target.mtime.toISOString();
      }
    } else {
      entry.size = s.size;
      entry.mtime = s.mtime.toISOString();
    }
    if (entry.type === "directory" && depth > 1) entry.children = await walk(policy, root, abs, depth - 1, budget);
    out.push(entry);
  }
  return out;
}

function typeOf(s: Stats): EntryType {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "directory";
  if (s.isFile()) return "file";
  return "other";
}

/** Stats of a link's target when it is a regular file or directory inside `root`; otherwise undefined. */
async function insideTarget(root: Root, link: string): Promise<Stats | undefined> {
  try {
    const real = await realpath(link);
    if (!isInside(root.real, real)) return undefined;
    const s = await stat(real);
    return s.isFile() || s.isDirectory() ? s : undefined;
  } catch {
    return undefined;
  }
}
