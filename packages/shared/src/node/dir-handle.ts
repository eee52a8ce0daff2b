import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Dirent,
  type Stats,
} from "node:fs";
import { readdir } from "node:fs/promises";
import { isInside } from "./inside.js";

// O_PATH (Linux): a descriptor that names an inode without opening it for I/O, so opening a
// directory, a FIFO or a device to check it has no side effect and needs no read permission.
const O_PATH = process.platform === "linux" ? 0o10000000 : constants.O_RDONLY;
const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");

/** Raised when a directory's opened inode lies outside `rootReal`; callers map it to their own error. */
export class OutsideRootError extends Error {
  override readonly name = "OutsideRootError";
}

export function isOutsideRootError(e: unknown): e is OutsideRootError {
  return e instanceof Error && e.name === "OutsideRootError";
}

/**
 * A directory opened once and checked by what the kernel opened, not by its path. Names below it
 * are looked up from this inode (`/proc/self/fd/N/name`), so swapping any component of its path
 * for a symlink afterwards cannot redirect an operation outside the root. Only single names are
 * resolved through it, and operations that do not follow a final symlink (lstat, unlink, rename,
 * mkdir, open with O_EXCL or O_NOFOLLOW) are exact.
 */
export class DirHandle {
  private constructor(
    readonly fd: number,
    /** The directory's real path when it was opened (for display and containment of children). */
    readonly real: string,
  ) {}

  /**
   * Opens `abs` as a directory (following symlinks in it) and refuses it unless the opened inode's
   * real path lies inside `rootReal`. Throws Node errors (ENOENT, ENOTDIR) or OutsideRootError.
   */
  static open(abs: string, rootReal: string, follow = true): DirHandle {
    const fd = openSync(abs, O_PATH | constants.O_DIRECTORY | (follow ? 0 : constants.O_NOFOLLOW));
    return DirHandle.checked(fd, abs, rootReal);
  }

  private static checked(fd: number, abs: string, rootReal: string): DirHandle {
    try {
      const real = PROC_FD ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(abs);
      if (!isInside(rootReal, real)) throw new OutsideRootError(`${abs} resolves outside ${rootReal}`);
      return new DirHandle(fd, real);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** A path naming this directory itself through the descriptor. */
  get path(): string {
    return PROC_FD ? `/proc/self/fd/${this.fd}` : this.real;
  }

  /** A path naming `name` inside this directory; `name` is one path segment. */
  at(name: string): string {
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
      throw new Error(`Not a single path segment: ${JSON.stringify(name)}`);
    }
    return `${this.path}/${name}`;
  }

  /** Opens the child directory `name`; a symlink is followed only when its target stays inside `rootReal`. */
  child(name: string, rootReal: string): DirHandle {
    return DirHandle.open(this.at(name), rootReal);
  }

  /** Opens the child directory `name` only if it is a plain directory (never a symlink). */
  plainChild(name: string, rootReal: string): DirHandle {
    return DirHandle.open(this.at(name), rootReal, false);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * What `p` names, following symlinks, if the inode it reaches lies inside `rootReal`: the target is
 * opened (O_PATH, no side effect) and checked by its descriptor, so the stats are of the inode that
 * was checked. Undefined for anything missing, outside or unreadable.
 */
export function statInside(p: string, rootReal: string): { real: string; stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(p, O_PATH);
  } catch {
    return undefined;
  }
  try {
    const real = PROC_FD ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(p);
    return isInside(rootReal, real) ? { real, stats: fstatSync(fd) } : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Lists a directory by its real path, opened and checked to lie inside `rootReal`; [] when it cannot be. */
export async function readdirInside(
  dirReal: string,
  rootReal: string,
): Promise<{ dir: DirHandle; dirents: Dirent[] } | undefined> {
  let dir: DirHandle;
  try {
    dir = DirHandle.open(dirReal, rootReal);
  } catch {
    return undefined;
  }
  try {
    return { dir, dirents: await readdir(dir.path, { withFileTypes: true }) };
  } catch {
    dir.close();
    return undefined;
  }
}
