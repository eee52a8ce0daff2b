import { randomBytes } from "node:crypto";
import { link, open, rename, unlink } from "node:fs/promises";
import path from "node:path";

/** Temp files of atomic writes: `.<name>.<hex>.tmp` beside the target. Watchers and listings skip them. */
export const ATOMIC_TEMP_RE = /^\..+\.[0-9a-f]{8,}\.tmp$/;

/** A fresh temp path beside `target` that matches ATOMIC_TEMP_RE (so watchers and listings skip it). */
export function atomicTempPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
}

/**
 * Writes `data` to `target` so that readers (and file watchers) only ever see the old or the
 * complete new file: write a temp file in the same directory, fsync, then rename.
 * With `exclusive`, the final step is `link()`, which fails with EEXIST instead of replacing.
 */
export async function atomicWrite(target: string, data: Uint8Array, exclusive = false): Promise<void> {
  const tmp = atomicTempPath(target);
  // Security: 'wx' refuses to follow or reuse anything already at the temp name.
  const handle = await open(tmp, "wx", 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (exclusive) {
      await link(tmp, target);
      await unlink(tmp);
    } else {
      await rename(tmp, target);
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
