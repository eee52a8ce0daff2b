import type { FsErrorCode } from "../fs-errors.js";

/** A file-tool failure a model can act on: `message` says what happened and what to do next. */
export class FsError extends Error {
  override readonly name = "FsError";
  readonly code: FsErrorCode;
  /** Facts a caller may pass on as data (e.g. `currentEtag` of a conflict). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: FsErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.code = code;
    this.details = options?.details ?? {};
  }
}

export function isFsError(e: unknown): e is FsError {
  return e instanceof Error && e.name === "FsError" && typeof (e as FsError).code === "string";
}

/** The only place that reads Node's `err.code`: maps it to an FsError about `display`. */
export function fromNodeError(err: unknown, display: string): FsError {
  if (isFsError(err)) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const opts = { cause: err };
  switch (code) {
    case "ENOENT":
      return new FsError(
        "not_found",
        `${display} does not exist. Use fs_search_files or fs_list_directory to find the right path.`,
        opts,
      );
    case "ENOTDIR":
      return new FsError("not_a_directory", `A component of ${display} is a file, not a directory.`, opts);
    case "EISDIR":
      return new FsError("is_directory", `${display} is a directory. Use fs_list_directory to see its entries.`, opts);
    case "EEXIST":
    case "ENOTEMPTY":
      return new FsError("exists", `${display} already exists. Choose another name or allow overwriting.`, opts);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new FsError("denied", `Permission denied for ${display}.`, opts);
    case "ENAMETOOLONG":
      return new FsError("invalid_path", `The path ${display.slice(0, 80)}… is too long for the file system.`, opts);
    case "ELOOP":
      return new FsError("invalid_path", `${display} has too many levels of symbolic links.`, opts);
    case "EMFILE":
    case "ENFILE":
    case "EBUSY":
    case "EAGAIN":
      return new FsError("unavailable", `The server is busy (${code}); retry in a moment.`, opts);
    default:
      return new FsError("internal", `Unexpected file-system error on ${display} (${code ?? "unknown"}).`, opts);
  }
}
