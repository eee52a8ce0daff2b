import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  statSync,
  type BigIntStats,
  type Stats,
} from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ROOT, type RootName } from "../tool-names.js";
import { DirHandle, isOutsideRootError } from "./dir-handle.js";
import { isInside, relativeBelow } from "./inside.js";
import { FsError, fromNodeError } from "./fs-error.js";

export { isInside } from "./inside.js";

/** A configured root, resolved once at start. */
export interface Root {
  name: RootName;
  /** The path as configured (absolute). */
  configured: string;
  /** `realpath` of the configured path: every containment check compares against this. */
  real: string;
  writable: boolean;
}

/** What a caller intends to do with a path; decides which checks apply. */
export type PathIntent = "read" | "write" | "create-dir";

/** A path accepted by the policy. */
export interface ResolvedPath {
  root: Root;
  /** Absolute path to use for I/O: inside `root.real`, symlinks below the final component resolved. */
  abs: string;
  /** Workspace path for display and tool results (`data/planets.xlsx`, `generated_assets/x.png`). */
  display: string;
  /** `lstat` of the final component, or undefined when it does not exist yet. */
  stats: Stats | undefined;
}

/**
 * An entry addressed through its parent directory's checked descriptor: every operation on it goes
 * through `at` (`/proc/self/fd/N/name`), never through the path string again. The caller closes `dir`.
 */
export interface AnchoredPath {
  root: Root;
  dir: DirHandle;
  name: string;
  /** The entry through the parent's descriptor. */
  at: string;
  display: string;
  /** `lstat` of the entry itself when it was opened; undefined when it does not exist. */
  stats: Stats | undefined;
}

/** An existing file or directory opened for reading: `fd` is the checked inode itself; the caller closes it. */
export interface OpenedPath extends Omit<ResolvedPath, "stats"> {
  fd: number;
  stats: BigIntStats;
}

// O_NOFOLLOW: a symlink as the last component takes the checked slow path. O_NONBLOCK: opening a
// FIFO must not wait for a writer before fstat can refuse it.
const OPEN_CHECKED = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Resolves roots with `realpath`; fails fast with a message naming the missing directory. */
export async function resolveRoots(specs: { name: RootName; path: string; writable: boolean }[]): Promise<Root[]> {
  return Promise.all(
    specs.map(async (spec) => {
      const configured = path.resolve(spec.path);
      let real: string;
      try {
        real = await realpath(configured);
      } catch (err) {
        throw new Error(`${spec.name} directory ${configured} does not exist or is unreadable`, {
          cause: err,
        });
      }
      const s = await stat(real);
      if (!s.isDirectory()) throw new Error(`${spec.name} (${configured}) is not a directory`);
      return { name: spec.name, configured, real, writable: spec.writable };
    }),
  );
}

/**
 * The one path policy of textide: every path from a tool argument, the exec sandbox, the web
 * server's file API or the watcher goes through `resolve()` before any I/O.
 */
export class PathPolicy {
  readonly roots: readonly Root[];
  readonly project: Root;

  constructor(roots: readonly Root[]) {
    const project = roots.find((r) => r.name === ROOT.project);
    if (!project) throw new Error("PathPolicy needs a project_root");
    this.roots = roots;
    this.project = project;
  }

  root(name: RootName): Root {
    const r = this.roots.find((x) => x.name === name);
    if (!r) throw new FsError("not_found", `The ${name} root is not configured on this server.`);
    return r;
  }

  /** Display path of an absolute path inside `root` (POSIX separators, root prefix for assets). */
  display(root: Root, abs: string): string {
    const rel = relativeBelow(root.real, abs) ?? path.relative(root.real, abs).split(path.sep).join("/");
    if (root.name === ROOT.project) return rel === "" ? "." : rel;
    return rel === "" ? root.name : `${root.name}/${rel}`;
  }

  /**
   * Maps a workspace path to a root and a lexical candidate, without touching the disk.
   * Throws `invalid_path` / `outside_root`.
   */
  locate(input: string): { root: Root; candidate: string } {
    if (typeof input !== "string") throw new FsError("invalid_path", "The path must be a string.");
    if (input.includes("\0")) {
      throw new FsError("invalid_path", "The path contains a NUL byte; remove it and try again.");
    }
    if (input === "~" || input.startsWith("~/")) {
      throw new FsError(
        "outside_root",
        `Home-directory paths are not allowed (${input}). Use a path relative to project_root, e.g. \`data/file.csv\`.`,
      );
    }
    if (path.isAbsolute(input)) {
      const candidate = path.resolve(input);
      for (const root of this.roots) {
        for (const base of [root.real, root.configured]) {
          if (isInside(base, candidate)) {
            return { root, candidate: path.join(root.real, path.relative(base, candidate)) };
          }
        }
      }
      throw this.outside(input);
    }
    const normalized = input.split(path.sep).join("/");
    const [first = "", ...rest] = normalized.split("/");
    const assets = this.roots.find((r) => r.name !== ROOT.project && r.name === first);
    const root = assets ?? this.project;
    const relative = assets ? rest.join("/") : normalized;
    // `join`, not `resolve`: `generated_assets//x.png` leaves `/x.png`, which must stay below the root.
    const candidate = path.join(root.real, relative);
    if (!isInside(root.real, candidate)) throw this.outside(input);
    return { root, candidate };
  }

  /**
   * Metadata calls are synchronous on purpose: on a local disk an lstat/realpath takes a few µs,
   * less than one thread-pool round trip of the async API, and the policy runs on every call.
   *
   * Accepts a path only if it (after resolving symlinks, or its nearest existing ancestor's for a
   * new file) stays inside the same root. Rejects device files, FIFOs and sockets; for writes,
   * rejects a symlink at the final component and read-only roots.
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- async by contract: callers get rejections, and the I/O may become async again for remote file systems.
  async resolve(input: string, intent: PathIntent = "read"): Promise<ResolvedPath> {
    const { root, candidate } = this.locate(input);
    if (intent !== "read" && !root.writable) {
      throw new FsError("read_only", `${root.name} is read-only here; write under generated_assets/ instead.`);
    }
    const display = this.display(root, candidate);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(candidate);
    } catch (err) {
      const fsErr = fromNodeError(err, display);
      if (fsErr.code !== "not_found" && fsErr.code !== "not_a_directory") throw fsErr;
    }

    if (stats === undefined) {
      // A new file: the nearest existing ancestor decides containment.
      const ancestor = this.nearestExistingAncestor(candidate, root);
      const realAncestor = tryFs(() => realpathSync.native(ancestor), display);
      if (!isInside(root.real, realAncestor)) throw this.outside(input, true);
      const abs = path.join(realAncestor, path.relative(ancestor, candidate));
      return { root, abs, display, stats: undefined };
    }

    if (stats.isSymbolicLink()) {
      if (intent === "write") {
        throw new FsError(
          "denied",
          `${display} is a symbolic link; writes never follow links. Write to the link's target path instead.`,
        );
      }
      let real: string;
      try {
        real = realpathSync.native(candidate);
      } catch {
        // A link that points out of the root is refused as such, even when its target is missing
        // (or invisible, as inside the exec sandbox); the target path is never revealed.
        const target = path.resolve(
          path.dirname(candidate),
          tryFs(() => readlinkSync(candidate), display),
        );
        if (!isInside(root.real, target)) throw this.outside(input, true);
        throw new FsError("not_found", `${display} is a symbolic link whose target does not exist (dangling link).`);
      }
      if (!isInside(root.real, real)) throw this.outside(input, true);
      const target = tryFs(() => statSync(real), display);
      assertRegularOrDir(target, display);
      return { root, abs: real, display, stats: target };
    }

    // Symlinked directories above the final component are resolved here.
    const real = tryFs(() => realpathSync.native(candidate), display);
    if (!isInside(root.real, real)) throw this.outside(input, true);
    assertRegularOrDir(stats, display);
    return { root, abs: real, display, stats };
  }

  /** Like `resolve(input, "read")`, but a missing path is a `not_found` error. */
  async resolveExisting(input: string): Promise<ResolvedPath & { stats: Stats }> {
    const resolved = await this.resolve(input, "read");
    if (!resolved.stats) {
      throw new FsError(
        "not_found",
        `${resolved.display} does not exist. Use fs_search_files or fs_list_directory to find the right path.`,
      );
    }
    return resolved as ResolvedPath & { stats: Stats };
  }

  /**
   * Opens an existing file or directory for reading and checks the inode it opened: the kernel's
   * name for the descriptor (`/proc/self/fd/N`) must lie inside the root. Compared with `resolve` and
   * a later `open`, nothing can swap a path component for a symlink between the check and the read,
   * and it costs three system calls instead of an lstat and a realpath per component. Symlinks as
   * the last component, errors and systems without /proc take `resolveExisting`'s checks first.
   */
  async openExisting(input: string): Promise<OpenedPath> {
    const { root, candidate } = this.locate(input);
    let fd: number;
    try {
      fd = openSync(candidate, OPEN_CHECKED);
    } catch {
      // Missing, a symlink, not permitted: resolveExisting throws the precise error or follows the link.
      const resolved = await this.resolveExisting(input);
      fd = tryFs(() => openSync(resolved.abs, OPEN_CHECKED), resolved.display);
    }
    try {
      const stats = fstatSync(fd, { bigint: true });
      const real = this.openedPath(fd, candidate, root, input);
      const display = this.display(root, candidate);
      assertRegularOrDir(stats, display);
      return { fd, root, abs: real, display, stats };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * Opens the parent directory of `input` and checks the inode it opened (symlinks on the way are
   * followed only where they stay inside the root), so the entry can be created, replaced, renamed
   * or deleted through that descriptor with no window in which a path component can be swapped.
   * With `createParents`, missing folders are made one at a time, each opened and checked the same way.
   */
  openParent(input: string, intent: PathIntent = "write", opts: { createParents?: boolean } = {}): AnchoredPath {
    const { root, candidate } = this.locate(input);
    if (intent !== "read" && !root.writable) {
      throw new FsError("read_only", `${root.name} is read-only here; write under generated_assets/ instead.`);
    }
    const display = this.display(root, candidate);
    if (candidate === root.real) {
      throw new FsError("denied", `${display} is a workspace root; choose a file or folder inside it.`);
    }
    const parent = path.dirname(candidate);
    let dir: DirHandle;
    try {
      dir = DirHandle.open(parent, root.real);
    } catch (err) {
      if (isOutsideRootError(err)) throw this.outside(input, true);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && opts.createParents) dir = this.makeDirs(root, parent, input);
      else if (code === "ENOENT") {
        throw new FsError(
          "not_found",
          `The folder ${this.display(root, parent)} does not exist. Create it first (or allow creating parent folders).`,
          { cause: err },
        );
      } else throw fromNodeError(err, this.display(root, parent));
    }
    const name = path.basename(candidate);
    try {
      const at = dir.at(name);
      let stats: Stats | undefined;
      try {
        stats = lstatSync(at);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw fromNodeError(err, display);
      }
      if (stats && !stats.isSymbolicLink()) assertRegularOrDir(stats, display);
      return { root, dir, name, at, display, stats };
    } catch (err) {
      dir.close();
      throw err;
    }
  }

  /** `openParent`, then `fn` with the entry, and the parent descriptor closed afterwards. */
  async withParent<T>(
    input: string,
    intent: PathIntent,
    opts: { createParents?: boolean },
    fn: (entry: AnchoredPath) => Promise<T>,
  ): Promise<T> {
    const entry = this.openParent(input, intent, opts);
    try {
      return await fn(entry);
    } finally {
      entry.dir.close();
    }
  }

  /** `mkdir -p` below the root, one checked descriptor per level. */
  private makeDirs(root: Root, dirAbs: string, input: string): DirHandle {
    const rel = path.relative(root.real, dirAbs);
    let dir = DirHandle.open(root.real, root.real);
    try {
      for (const segment of rel.split(path.sep)) {
        try {
          mkdirSync(dir.at(segment));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        }
        const next = dir.child(segment, root.real);
        dir.close();
        dir = next;
      }
      return dir;
    } catch (err) {
      dir.close();
      if (isOutsideRootError(err)) throw this.outside(input, true);
      throw fromNodeError(err, this.display(root, dirAbs));
    }
  }

  /** The real path of an open descriptor, refused unless it lies inside `root`. */
  private openedPath(fd: number, candidate: string, root: Root, input: string): string {
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      real = tryFs(() => realpathSync.native(candidate), this.display(root, candidate));
    }
    if (!isInside(root.real, real)) throw this.outside(input, true);
    return real;
  }

  private nearestExistingAncestor(candidate: string, root: Root): string {
    let dir = path.dirname(candidate);
    while (isInside(root.real, dir) && dir !== root.real) {
      try {
        const s = lstatSync(dir);
        if (!s.isDirectory() && !s.isSymbolicLink()) {
          throw new FsError("not_a_directory", `${this.display(root, dir)} is a file, not a directory.`);
        }
        return dir;
      } catch (err) {
        if (err instanceof FsError) throw err;
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw fromNodeError(err, this.display(root, dir));
      }
      dir = path.dirname(dir);
    }
    return root.real;
  }

  private outside(input: string, viaLink = false): FsError {
    const roots = this.roots
      .map((r) => (r.name === ROOT.project ? "project_root (relative paths)" : `${r.name}/`))
      .join(" and ");
    const why = viaLink ? " (it resolves through a symbolic link to a place outside the roots)" : "";
    return new FsError(
      "outside_root",
      `Access denied: ${JSON.stringify(input)} is outside the allowed roots${why}. Allowed: ${roots}. ` +
        "Use fs_list_directory on `.` to see what exists.",
    );
  }
}

/** Runs a synchronous fs call, mapping Node errors to FsError. */
function tryFs<T>(fn: () => T, display: string): T {
  try {
    return fn();
  } catch (err) {
    throw fromNodeError(err, display);
  }
}

function assertRegularOrDir(s: Stats | BigIntStats, display: string): void {
  if (s.isFile() || s.isDirectory()) return;
  throw new FsError(
    "denied",
    `${display} is a device, FIFO or socket; only regular files and directories can be used.`,
  );
}
