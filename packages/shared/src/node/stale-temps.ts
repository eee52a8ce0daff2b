import { lstat, rm, unlink } from "node:fs/promises";
import { ATOMIC_TEMP_RE, tempWriterPid } from "./atomic-write.js";
import { DirHandle } from "./dir-handle.js";
import { LOCK_RE } from "./entry-lock.js";
import type { Root } from "./path-policy.js";
import { SKIPPED_DIRS, walk } from "./walk.js";

// A temp file's writer may be another live textide process mid-write: only a temp whose writer is
// gone (and that is a moment old), or any temp older than an hour, is left over from a crash.
const DEAD_WRITER_GRACE_MS = 2_000;
const ABANDONED_MS = 60 * 60 * 1000;
// Lock directories are taken over by the next writer after 10 s anyway (entry-lock.ts).
const STALE_LOCK_MS = 10_000;

/**
 * Removes what a killed writer leaves behind: atomic-write temp files and entry lock folders.
 * Run once at start, in the background. Returns how many entries were removed.
 */
export async function removeStaleTemps(roots: readonly Root[], now = Date.now()): Promise<number> {
  let removed = 0;
  for (const root of roots) {
    const found: { dir: string; name: string; lock: boolean }[] = [];
    await walk(root.real, { rootReal: root.real, skipDirs: SKIPPED_DIRS }, (e) => {
      if (e.type === "file" && ATOMIC_TEMP_RE.test(e.name)) found.push({ dir: e.dir, name: e.name, lock: false });
      else if (e.type === "directory" && LOCK_RE.test(e.name)) found.push({ dir: e.dir, name: e.name, lock: true });
    });
    for (const f of found) {
      let dir: DirHandle;
      try {
        dir = DirHandle.open(f.dir, root.real);
      } catch {
        continue;
      }
      try {
        const s = await lstat(dir.at(f.name));
        const age = now - s.mtimeMs;
        if (f.lock ? age > STALE_LOCK_MS : isAbandonedTemp(f.name, age)) {
          await (f.lock ? rm(dir.at(f.name), { recursive: true }) : unlink(dir.at(f.name)));
          removed++;
        }
      } catch {
        // Gone meanwhile, or not ours to remove: leave it.
      } finally {
        dir.close();
      }
    }
  }
  return removed;
}

function isAbandonedTemp(name: string, ageMs: number): boolean {
  if (ageMs > ABANDONED_MS) return true;
  const pid = tempWriterPid(name);
  return pid !== undefined && ageMs > DEAD_WRITER_GRACE_MS && !isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
