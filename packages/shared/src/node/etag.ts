import type { BigIntStats } from "node:fs";
import { stat } from "node:fs/promises";

/**
 * A strong validator from inode, size and nanosecond mtime. Atomic writes replace the inode, so
 * every write through textide changes it even within one clock tick; no file content is hashed.
 */
export function etagFromStats(s: BigIntStats): string {
  return `"${s.ino.toString(36)}-${s.size.toString(36)}-${s.mtimeNs.toString(36)}"`;
}

export async function etagOf(abs: string): Promise<string> {
  return etagFromStats(await stat(abs, { bigint: true }));
}
