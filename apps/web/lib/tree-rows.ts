import type { TreeEntry } from "./types";
import { isDirectory } from "./types";

/** One line of the explorer: the expanded tree flattened, so only the visible lines are rendered. */
export type TreeRow =
  | { kind: "entry"; key: string; entry: TreeEntry; depth: number; dir: boolean; expanded: boolean }
  | { kind: "note"; key: string; text: string; depth: number; error?: boolean }
  | { kind: "create"; key: string; parent: string; type: "file" | "directory"; depth: number };

export interface TreeListing {
  entries: TreeEntry[];
  truncated: boolean;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Folders first, then names in natural order (`item-2` before `item-10`). */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  const d = Number(isDirectory(b)) - Number(isDirectory(a));
  return d !== 0 ? d : collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Inserts `entry` at its sorted place (binary search: a 20,000-entry folder takes an event in µs). */
export function insertSorted(entries: readonly TreeEntry[], entry: TreeEntry): TreeEntry[] {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareEntries(entries[mid]!, entry) < 0) lo = mid + 1;
    else hi = mid;
  }
  return [...entries.slice(0, lo), entry, ...entries.slice(lo)];
}

/**
 * The rows of the tree below the top folder ""; `creating` inserts the inline name input at the top
 * of its parent folder.
 */
export function flattenTree(
  dirs: Readonly<Record<string, TreeListing>>,
  failed: Readonly<Record<string, string>>,
  expanded: ReadonlySet<string>,
  creating?: { parent: string; type: "file" | "directory" },
): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (dir: string, depth: number): void => {
    if (creating?.parent === dir) {
      rows.push({ kind: "create", key: `create:${dir}`, parent: dir, type: creating.type, depth });
    }
    const listing = dirs[dir];
    if (!listing) {
      const error = failed[dir];
      rows.push({ kind: "note", key: `note:${dir}`, text: error ?? "loading…", depth, error: error !== undefined });
      return;
    }
    if (listing.entries.length === 0 && creating?.parent !== dir) {
      rows.push({ kind: "note", key: `note:${dir}`, text: "(empty)", depth });
    }
    for (const entry of listing.entries) {
      const dirEntry = isDirectory(entry);
      const open = dirEntry && expanded.has(entry.path);
      rows.push({ kind: "entry", key: entry.path, entry, depth, dir: dirEntry, expanded: open });
      if (open) visit(entry.path, depth + 1);
    }
    if (listing.truncated) {
      rows.push({ kind: "note", key: `more:${dir}`, text: "… more entries than the server lists", depth });
    }
  };
  visit("", 0);
  return rows;
}
