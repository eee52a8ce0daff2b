import { mkdir } from "node:fs/promises";
import path from "node:path";
import { FsError, fromNodeError, type ResolvedPath, atomicWrite, etagOf } from "@textide/shared/node";

/** Largest file the write tools accept in one call. */
export const MAX_WRITE_BYTES = 20 * 1024 * 1024;

/** Fails with `conflict` when the file's current etag differs from the caller's. */
export async function checkEtag(file: ResolvedPath, expected: string | undefined): Promise<void> {
  if (expected === undefined) return;
  const current = file.stats ? await etagOf(file.abs) : "(missing)";
  if (current !== expected) {
    throw new FsError(
      "conflict",
      `${file.display} changed since it was read (etag ${expected}, now ${current}). Read it again, reapply your change, and retry with the new etag.`,
    );
  }
}

/** Atomic write of a resolved path (temp + rename, or link for create-only). Returns the new etag. */
export async function writeResolved(
  file: ResolvedPath,
  data: Uint8Array,
  opts: { exclusive: boolean; createParents: boolean },
): Promise<string> {
  if (data.byteLength > MAX_WRITE_BYTES) {
    throw new FsError("too_large", `Content is ${data.byteLength} bytes; the limit per write is ${MAX_WRITE_BYTES}.`);
  }
  if (file.stats?.isDirectory()) {
    throw new FsError("is_directory", `${file.display} is a directory; choose a file name inside it.`);
  }
  try {
    if (opts.createParents) await mkdir(path.dirname(file.abs), { recursive: true });
    await atomicWrite(file.abs, data, opts.exclusive);
  } catch (err) {
    throw fromNodeError(err, file.display);
  }
  return etagOf(file.abs);
}
