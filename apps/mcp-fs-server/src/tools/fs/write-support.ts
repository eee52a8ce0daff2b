import { FsError, type AnchoredPath, type Committed, type CommitOptions, commitWrite } from "@textide/shared/node";

/** Largest file the write tools accept in one call. */
export const MAX_WRITE_BYTES = 20 * 1024 * 1024;

/** Atomic, locked write through the checked parent (see `commitWrite`): etag and mode checks included. */
export async function writeAnchored(file: AnchoredPath, data: Uint8Array, opts: CommitOptions): Promise<Committed> {
  if (data.byteLength > MAX_WRITE_BYTES) {
    throw new FsError("too_large", `Content is ${data.byteLength} bytes; the limit per write is ${MAX_WRITE_BYTES}.`);
  }
  return commitWrite(file, data, opts);
}
