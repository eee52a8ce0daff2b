import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { isInside, type PathPolicy, type Root } from "@textide/shared/node";
import { isHiddenName } from "./fs/tree.js";
import { FILE_CHANGE_KINDS, type FileChangedEvent, type FileChangeKind } from "./socket/events.js";

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
}

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

  const flush = (): void => {
    clearTimeout(quietTimer);
    clearTimeout(maxTimer);
    quietTimer = maxTimer = undefined;
    if (pending.size === 0) return;
    const events = [...pending.values()];
    pending.clear();
    emit(events);
  };

  const record = (kind: FileChangeKind, abs: string): void => {
    const root = rootOf(roots, abs);
    if (!root) return;
    const display = policy.display(root, abs);
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
  const kinds = new Set<string>(FILE_CHANGE_KINDS);
  watcher.on("all", (event, abs) => {
    if (kinds.has(event)) record(event as FileChangeKind, abs);
  });
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  watcher.on("error", (err) => opts.onError?.(err));

  return {
    ready,
    async close() {
      clearTimeout(quietTimer);
      clearTimeout(maxTimer);
      pending.clear();
      await watcher.close();
    },
  };
}

function rootOf(roots: readonly Root[], abs: string): Root | undefined {
  return roots.find((r) => isInside(r.real, abs) && abs !== r.real);
}
