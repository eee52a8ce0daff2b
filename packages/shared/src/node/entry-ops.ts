import { cp, link, lstat, readdir, rename, rmdir, unlink } from "node:fs/promises";
import { commitTemp, tempNameFor } from "./atomic-write.js";
import { DirHandle } from "./dir-handle.js";
import { fromNodeError } from "./fs-error.js";
import type { AnchoredPath } from "./path-policy.js";

/**
 * Deletes an entry: a file or symlink (never its target) is unlinked; a directory is emptied one
 * level at a time through descriptors opened without following links, so a folder swapped for a
 * symlink mid-way is unlinked as a link and nothing outside the root is touched.
 */
export async function removeAt(target: AnchoredPath): Promise<void> {
  try {
    await removeIn(target.dir, target.name, target.root.real);
  } catch (err) {
    throw fromNodeError(err, target.display);
  }
}

async function removeIn(dir: DirHandle, name: string, rootReal: string): Promise<void> {
  const s = await lstat(dir.at(name));
  if (!s.isDirectory()) {
    await unlink(dir.at(name));
    return;
  }
  let child: DirHandle;
  try {
    child = dir.plainChild(name, rootReal);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Swapped for a symlink (or a file) since the lstat: remove what is there now, as a name.
    if (code === "ENOTDIR" || code === "ELOOP") return unlink(dir.at(name));
    throw err;
  }
  try {
    for (const entry of await readdir(child.path)) await removeIn(child, entry, rootReal);
  } finally {
    child.close();
  }
  await rmdir(dir.at(name));
}

/**
 * Moves `from` to `to` (both checked parents). Files and links move with `link` + `unlink`, which
 * fails with EEXIST rather than replacing something that appeared at `to`; folders with `rename`
 * (Node has no rename-without-replace: a racing empty folder at `to` could be replaced). Between
 * file systems the entry is copied under a temp name, moved into place, then deleted.
 */
export async function moveAt(from: AnchoredPath, to: AnchoredPath, overwrite = false): Promise<void> {
  const isDir = from.stats?.isDirectory() ?? false;
  try {
    if (!isDir && !overwrite) {
      await link(from.at, to.at);
      await unlink(from.at);
    } else {
      await rename(from.at, to.at);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    const tmp = tempNameFor(to.name);
    try {
      await cp(from.at, to.dir.at(tmp), { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
      await commitTemp(to.dir, tmp, to.name, !overwrite && !isDir);
    } catch (copyErr) {
      await removeAt({ ...to, name: tmp, at: to.dir.at(tmp) }).catch(() => undefined);
      throw copyErr;
    }
    await removeAt(from);
  }
}
