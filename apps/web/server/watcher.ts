import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import {
  DirHandle,
  entryPath,
  isHiddenName,
  isInside,
  SKIPPED_DIRS,
  walk,
  type PathPolicy,
  type Root,
} from "@textide/shared/node";
import { FILE_CHANGE_KINDS, type FileChangedEvent, type FileChangeKind } from "@textide/shared";

export interface WorkspaceWatcher {
  /** Resolves once the initial scan is done: changes after this are reported. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatcherOptions {
  /** Quiet period that ends a burst (ms). */
  quietMs?: number;
  /** A burst is flushed at the latest this long after its first event (ms). */
  maxWaitMs?: number;
  /** Called for watcher errors after start-up (they do not stop the watcher). */
  onError?: (err: unknown) => void;
  /** How long after an `addDir` the new folder is listed for files chokidar missed (ms). */
  rescanMs?: number;
}

/** Files reported from one rescan of a new folder, at most. */
const RESCAN_MAX_FILES = 500;
/** An `add` for a path already reported as added within this window is a duplicate (ms). */
const ADD_DEDUP_MS = 5000;

/**
 * Watches both roots and reports coalesced changes. No `awaitWriteFinish`: textide writes are
 * atomic renames, so a file appears complete; temp files of those writes are ignored.
 */
export function createWatcher(
  policy: PathPolicy,
  emit: (events: FileChangedEvent[]) => void,
  opts: WatcherOptions = {},
): WorkspaceWatcher {
  const quietMs = opts.quietMs ?? 30;
  const maxWaitMs = opts.maxWaitMs ?? 250;
  // Deepest root first, so a root nested inside another claims its own paths.
  const roots = [...policy.roots].sort((a, b) => b.real.length - a.real.length);
  const pending = new Map<string, FileChangedEvent>();
  let quietTimer: NodeJS.Timeout | undefined;
  let maxTimer: NodeJS.Timeout | undefined;
  /** display path → when an `add` was last reported for it (chokidar's or a rescan's), for deduplication. */
  const added = new Map<string, number>();

  const flush = (): void => {
    clearTimeout(quietTimer);
    clearTimeout(maxTimer);
    quietTimer = maxTimer = undefined;
    // Expired entries go once per burst, not per event (a burst of 20,000 adds would be quadratic).
    const now = Date.now();
    for (const [p, at] of added) if (now - at >= ADD_DEDUP_MS) added.delete(p);
    if (pending.size === 0) return;
    const events = [...pending.values()];
    pending.clear();
    emit(events);
  };

  const rescans = new Set<NodeJS.Timeout>();
  let closed = false;

  const record = (kind: FileChangeKind, abs: string): void => {
    const root = rootOf(roots, abs);
    if (!root || !reachableInside(root, abs)) return;
    const display = policy.display(root, abs);
    const now = Date.now();
    if (kind === "add") {
      const at = added.get(display);
      if (at !== undefined && now - at < ADD_DEDUP_MS) return;
      added.set(display, now);
    } else if (kind === "unlink") {
      added.delete(display);
    }
    const previous = pending.get(display);
    // The last kind wins, except that a file added and then changed in one burst is still new.
    const merged = previous?.kind === "add" && kind === "change" ? "add" : kind;
    pending.set(display, { root: root.name, path: display, kind: merged });
    clearTimeout(quietTimer);
    quietTimer = setTimeout(flush, quietMs);
    maxTimer ??= setTimeout(flush, maxWaitMs);
  };

  const watcher: FSWatcher = watch(
    roots.map((r) => r.real),
    {
      ignoreInitial: true,
      // Never follow links: a link out of a root must not make the watcher report outside paths.
      followSymlinks: false,
      ignored: (p: string) => isHiddenName(path.basename(p)),
    },
  );
  /**
   * chokidar lists a new folder and only then watches it, so a file renamed into it in between (mkdir
   * then an atomic write, as the exec runner does) is never reported. Listing the folder once more,
   * after that window, reports such files; `record` drops the ones chokidar did see.
   */
  const rescan = (dir: string): void => {
    const root = rootOf(roots, dir);
    if (!root) return;
    const timer = setTimeout(() => {
      rescans.delete(timer);
      void listFiles(dir, root.real).then(
        (files) => {
          if (!closed) for (const f of files) record("add", f);
        },
        // The folder may be gone already (its unlinkDir is reported by chokidar).
        () => undefined,
      );
    }, opts.rescanMs ?? 100);
    rescans.add(timer);
  };

  const kinds = new Set<string>(FILE_CHANGE_KINDS);
  watcher.on("all", (event, abs) => {
    if (!kinds.has(event)) return;
    record(event as FileChangeKind, abs);
    if (event === "addDir") rescan(abs);
  });
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  watcher.on("error", (err) => opts.onError?.(err));

  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(quietTimer);
      clearTimeout(maxTimer);
      for (const t of rescans) clearTimeout(t);
      rescans.clear();
      pending.clear();
      await watcher.close();
    },
  };
}

/**
 * chokidar re-reads folders by path, so a folder swapped for a link out of the root would make it
 * report outside names. An event is kept only when its parent folder, opened and checked by
 * descriptor, still lies inside the root (or is gone, as for a deleted folder's files).
 */
function reachableInside(root: Root, abs: string): boolean {
  try {
    DirHandle.open(path.dirname(abs), root.real).close();
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

function rootOf(roots: readonly Root[], abs: string): Root | undefined {
  return roots.find((r) => isInside(r.real, abs) && abs !== r.real);
}

/**
 * Regular files under `dir`, at most RESCAN_MAX_FILES, through the shared walker: symlinks neither followed
 * nor reported, hidden names and temp files skipped.
 */
async function listFiles(dir: string, rootReal: string): Promise<string[]> {
  const out: string[] = [];
  const descendInto = (_parent: string, name: string): boolean => !isHiddenName(name);
  await walk(dir, { rootReal, skipDirs: SKIPPED_DIRS, followDirLinks: false, descendInto }, (e) => {
    if (e.type === "file" && !isHiddenName(e.name)) out.push(entryPath(e));
    return out.length < RESCAN_MAX_FILES;
  });
  return out;
}
