import { stat } from "node:fs/promises";

/**
 * A strong validator from inode, size and nanosecond mtime. Atomic writes replace the inode, so
 * every write through textide changes it even within one clock tick; no file content is hashed.
 */
export async function etagOf(abs: string): Promise<string> {
  const s = await stat(abs, { bigint: true });
  return `"${s.ino.toString(36)}-${s.size.toString(36)}-${s.mtimeNs.toString(36)}"`;
}
