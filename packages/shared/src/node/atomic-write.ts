import { randomBytes } from "node:crypto";
import { fstatSync, type BigIntStats } from "node:fs";
import { link, open, rename, unlink, type FileHandle } from "node:fs/promises";
import type { DirHandle } from "./dir-handle.js";

/**
 * Temp files of atomic writes: `.<name>.<writer pid, base 36>-<hex>.tmp` beside the target (older
 * versions wrote `.<name>.<hex>.tmp`). Watchers and listings skip them; start-up removes the ones
 * whose writer is gone.
 */
export const ATOMIC_TEMP_RE = /^\..+\.(?:[0-9a-z]+-)?[0-9a-f]{8,}\.tmp$/;

/** A fresh temp name for `name` that matches ATOMIC_TEMP_RE and records this process as its writer. */
export function tempNameFor(name: string): string {
  return `.${name}.${process.pid.toString(36)}-${randomBytes(6).toString("hex")}.tmp`;
}

/** The writer pid recorded in a temp name, if it has one. */
export function tempWriterPid(tempName: string): number | undefined {
  const m = /\.([0-9a-z]+)-[0-9a-f]{8,}\.tmp$/.exec(tempName);
  return m ? parseInt(m[1]!, 36) : undefined;
}

/** Creates a temp file beside `name` in `dir`; 'wx' never follows or reuses anything already there. */
export async function openTemp(dir: DirHandle, name: string): Promise<{ tmp: string; handle: FileHandle }> {
  const tmp = tempNameFor(name);
  return { tmp, handle: await open(dir.at(tmp), "wx", 0o644) };
}

/**
 * Moves the complete temp file `tmp` onto `name` in `dir`: `rename` replaces (never following a
 * symlink at `name`: the link itself is replaced), `link` + `unlink` fails with EEXIST instead.
 * The temp file is removed when the move fails.
 */
export async function commitTemp(dir: DirHandle, tmp: string, name: string, exclusive: boolean): Promise<void> {
  try {
    if (exclusive) {
      await link(dir.at(tmp), dir.at(name));
      await unlink(dir.at(tmp));
    } else {
      await rename(dir.at(tmp), dir.at(name));
    }
  } catch (err) {
    await unlink(dir.at(tmp)).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes `data` as `name` in the checked directory `dir` so that readers (and file watchers) only
 * ever see the old or the complete new file: temp file in the same directory, fsync, rename. Returns
 * the new file's stats (rename keeps inode and mtime, so its etag is the file's etag).
 */
export async function writeAt(dir: DirHandle, name: string, data: Uint8Array, exclusive = false): Promise<BigIntStats> {
  const { tmp, handle } = await openTemp(dir, name);
  let stats: BigIntStats;
  try {
    await handle.writeFile(data);
    await handle.sync();
    stats = fstatSync(handle.fd, { bigint: true });
  } catch (err) {
    await handle.close();
    await unlink(dir.at(tmp)).catch(() => undefined);
    throw err;
  }
  await handle.close();
  await commitTemp(dir, tmp, name, exclusive);
  return stats;
}
