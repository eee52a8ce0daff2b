import { lstatSync, type BigIntStats } from "node:fs";
import { writeAt } from "./atomic-write.js";
import { withEntryLock } from "./entry-lock.js";
import { etagFromStats } from "./etag.js";
import { FsError, fromNodeError } from "./fs-error.js";
import type { AnchoredPath } from "./path-policy.js";

export interface CommitOptions {
  /** Fail with `exists` instead of replacing a file that is there. */
  exclusive?: boolean;
  /** Fail with `conflict` unless the file's current etag is this (a missing file never matches). */
  expectedEtag?: string;
}

export interface Committed {
  etag: string;
  created: boolean;
}

/**
 * The one way textide replaces a file's content: under the entry's inter-process lock, look at what
 * is there now, check `exclusive` / `expectedEtag` against it, and write atomically through the
 * checked parent descriptor. Two writers holding the same etag cannot both succeed.
 */
export async function commitWrite(
  target: AnchoredPath,
  data: Uint8Array,
  opts: CommitOptions = {},
): Promise<Committed> {
  return withEntryLock(target, () => commitLocked(target, data, opts));
}

/** `commitWrite` for a caller that already holds the entry's lock (a read-modify-write). */
export async function commitLocked(
  target: AnchoredPath,
  data: Uint8Array,
  opts: CommitOptions = {},
): Promise<Committed> {
  const current = currentStats(target);
  if (current?.isSymbolicLink()) {
    throw new FsError(
      "denied",
      `${target.display} is a symbolic link; writes never follow links. Write to the link's target path instead.`,
    );
  }
  if (current?.isDirectory()) {
    throw new FsError("is_directory", `${target.display} is a directory; choose a file name inside it.`);
  }
  if (opts.exclusive && current) {
    throw new FsError("exists", `${target.display} already exists. Overwrite it, or pick another name.`);
  }
  if (opts.expectedEtag !== undefined) {
    const currentEtag = current ? etagFromStats(current) : null;
    if (currentEtag !== opts.expectedEtag) {
      throw new FsError(
        "conflict",
        current
          ? `${target.display} changed since it was read (etag ${opts.expectedEtag}, now ${currentEtag}). Read it again, reapply your change, and retry with the new etag.`
          : `${target.display} was deleted since it was read. Write it again without expectedEtag to recreate it.`,
        { details: { currentEtag, deleted: !current } },
      );
    }
  }
  const stats = await writeAt(target.dir, target.name, data, opts.exclusive).catch((err: unknown) => {
    throw fromNodeError(err, target.display);
  });
  return { etag: etagFromStats(stats), created: !current };
}

/** `lstat` of the entry now (bigint, for etags); undefined when it does not exist. */
export function currentStats(target: AnchoredPath): BigIntStats | undefined {
  try {
    return lstatSync(target.at, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fromNodeError(err, target.display);
  }
}
