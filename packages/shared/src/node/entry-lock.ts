import type { AnchoredPath } from "./path-policy.js";
import { FsError } from "./fs-error.js";

/** Lock directories beside a locked entry: `.<name>.textide-lock`. Watchers and listings skip them. */
export const LOCK_RE = /^\..+\.textide-lock$/;

export const lockNameFor = (name: string): string => `.${name}.textide-lock`;

// A holder refreshes its lock's mtime every 2 s; one not refreshed for 10 s belongs to a process
// that died (or a machine that lost the network disk) and is taken over.
const STALE_MS = 10_000;
const UPDATE_MS = 2_000;

/**
 * Runs `fn` while holding the inter-process lock of one entry, so that a check and the write it
 * guards (an etag compare and the rename, a read-modify-write edit) are one step for every writer:
 * this process, the other textide server and any instance on a shared disk. The lock is a
 * directory made with `mkdir` in the entry's checked parent (atomic on local and network disks).
 */
export async function withEntryLock<T>(target: AnchoredPath, fn: () => Promise<T>): Promise<T> {
  // Loaded at the first locked write: proper-lockfile patches `fs` through graceful-fs when it loads,
  // a tenth of the MCP server's start-up, and most sessions read before they write.
  const { default: lockfile } = await import("proper-lockfile");
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target.at, {
      lockfilePath: target.dir.at(lockNameFor(target.name)),
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      retries: { retries: 400, factor: 1.2, minTimeout: 2, maxTimeout: 40, randomize: true },
      // A lost lock is reported by the failing compare below, not by a throw from a timer.
      onCompromised: () => undefined,
    });
  } catch (err) {
    throw new FsError("unavailable", `${target.display} is being written by someone else; retry in a moment.`, {
      cause: err,
    });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
