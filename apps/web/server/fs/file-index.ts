import path from "node:path";
import { fuzzyMatch, normalizeQuery, type FileChangedEvent, type FileSearchHit } from "@textide/shared";
import { entryPath, isHiddenName, SKIPPED_DIRS, walk, type PathPolicy, type Root } from "@textide/shared/node";

/** Beyond this many files the index stops growing (quick open then covers part of the workspace). */
const DEFAULT_MAX_FILES = 500_000;

export interface FileIndex {
  /** Resolves once the first walk of both roots is done. */
  readonly ready: Promise<void>;
  /** True when the workspace has more files than the index keeps. */
  readonly capped: boolean;
  /**
   * Follows a watcher event. An `addDir` adds nothing itself: the watcher reports the new folder's files as
   * `add`s, including those chokidar missed (it lists every new folder again shortly after its `addDir`).
   */
  apply(event: FileChangedEvent): void;
  addFile(workspacePath: string): void;
  /** Removes a file or a folder with everything below it. */
  remove(workspacePath: string): void;
  /** Re-keys a file or folder (and everything below it) after a rename. */
  move(from: string, to: string): void;
  search(query: string, limit: number): { hits: FileSearchHit[]; truncated: boolean };
}

/**
 * The file list quick open searches: one walk of both roots at start, then kept current from the
 * watcher's events and the file API's own changes, so a query never touches the disk.
 */
export function createFileIndex(
  policy: PathPolicy,
  opts: { maxFiles?: number; onError?: (err: unknown) => void } = {},
): FileIndex {
  const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
  // workspace path → lower-cased path, so a search does not lower-case 20,000 strings per keystroke.
  const files = new Map<string, string>();
  let capped = false;

  const addFile = (p: string): void => {
    if (files.has(p)) return;
    if (files.size >= maxFiles) {
      capped = true;
      return;
    }
    files.set(p, p.toLowerCase());
  };

  const remove = (p: string): void => {
    files.delete(p);
    const prefix = `${p}/`;
    for (const key of files.keys()) if (key.startsWith(prefix)) files.delete(key);
  };

  const ready = Promise.all(
    policy.roots.map((root) => indexRoot(policy, root, addFile).catch((err: unknown) => opts.onError?.(err))),
  ).then(() => undefined);

  return {
    ready,
    get capped() {
      return capped;
    },
    apply(event) {
      switch (event.kind) {
        case "add":
          addFile(event.path);
          break;
        case "unlink":
          // One key, no prefix scan: deleting a folder of 20,000 files sends 20,000 of these.
          files.delete(event.path);
          break;
        case "unlinkDir":
          remove(event.path);
          break;
        case "addDir":
        case "change":
          break;
      }
    },
    addFile,
    remove,
    move(from, to) {
      const moved: [string, string][] = [];
      const prefix = `${from}/`;
      for (const key of files.keys()) {
        if (key === from) moved.push([key, to]);
        else if (key.startsWith(prefix)) moved.push([key, to + key.slice(from.length)]);
      }
      for (const [oldKey] of moved) files.delete(oldKey);
      for (const [, newKey] of moved) addFile(newKey);
    },
    search(query, limit) {
      const q = normalizeQuery(query);
      // The best `limit` matches so far, best first: an empty query matches every file, and sorting
      // 20,000 hits per keystroke to return 50 is wasted work.
      const top: FileSearchHit[] = [];
      let matched = 0;
      for (const [p, lower] of files) {
        if (q !== "" && !isSubsequence(q, lower)) continue;
        const m = fuzzyMatch(q, p, lower);
        if (!m) continue;
        matched++;
        const hit = { path: p, score: Math.round(m.score * 100) / 100 };
        if (top.length >= limit && (limit <= 0 || compareHits(hit, top[top.length - 1]!) >= 0)) continue;
        top.splice(insertionIndex(top, hit), 0, hit);
        if (top.length > limit) top.pop();
      }
      return { hits: top, truncated: matched > limit };
    },
  };
}

/** Higher score first, then the shorter path, then by path (a total order: paths are unique). */
function compareHits(a: FileSearchHit, b: FileSearchHit): number {
  return b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1);
}

/** Where `hit` goes in `sorted` (ordered by `compareHits`), by binary search. */
function insertionIndex(sorted: readonly FileSearchHit[], hit: FileSearchHit): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareHits(sorted[mid]!, hit) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Cheap pre-filter: most paths fail here, before any scoring. */
function isSubsequence(q: string, s: string): boolean {
  let at = 0;
  for (let i = 0; i < q.length; i++) {
    at = s.indexOf(q[i]!, at);
    if (at < 0) return false;
    at++;
  }
  return true;
}

/**
 * Every file in `root`, skipping what the tree hides, through the shared walker (each folder opened and
 * checked by descriptor; vanished, unreadable or swapped-out folders are skipped and the watcher reports
 * what comes back). Symlinked folders are not followed (no cycles, no second key for the same file); a
 * symlinked file is listed when its target stays in the root. Another root nested inside this one is
 * walked as itself, under its own prefix.
 */
async function indexRoot(policy: PathPolicy, root: Root, add: (p: string) => void): Promise<void> {
  const otherRoots = new Set(policy.roots.filter((r) => r !== root).map((r) => r.real));
  const descendInto = (dir: string, name: string): boolean =>
    !isHiddenName(name) && !otherRoots.has(path.join(dir, name)) && !shadowsRoot(policy, root, dir, name);
  await walk(root.real, { rootReal: root.real, skipDirs: SKIPPED_DIRS, followDirLinks: false, descendInto }, (e) => {
    if (isHiddenName(e.name)) return;
    if (e.type === "file" || e.targetType === "file") add(policy.display(root, entryPath(e)));
  });
}

/** A project folder named like the assets root is unreachable by workspace path (the prefix wins). */
function shadowsRoot(policy: PathPolicy, root: Root, parent: string, name: string): boolean {
  return parent === root.real && root === policy.project && policy.roots.some((r) => r !== root && r.name === name);
}
