import { isFsError, type FsError } from "@textide/shared/node";
import type { FsErrorCode } from "@textide/shared";

/** Codes of web-server errors that are not file-system errors. */
export type HttpErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "too_large"
  | "unsupported_media_type"
  | "conflict"
  | "internal";

/** An error the HTTP layer turns into `{error: {code, message, ...details}}` with `status`. */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: HttpErrorCode | FsErrorCode;
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: HttpErrorCode | FsErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof Error && e.name === "AppError" && typeof (e as AppError).status === "number";
}

const FS_STATUS: Record<FsErrorCode, number> = {
  invalid_path: 400,
  outside_root: 403,
  not_found: 404,
  is_directory: 400,
  not_a_directory: 400,
  not_a_file: 400,
  exists: 409,
  too_large: 413,
  denied: 403,
  read_only: 403,
  conflict: 409,
  no_match: 400,
  ambiguous_match: 400,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export function fromFsError(err: FsError): AppError {
  return new AppError(FS_STATUS[err.code], err.code, err.message, { cause: err });
}

/** Any thrown value as an AppError; unknown exceptions become a generic 500 (details are logged, not sent). */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isFsError(err)) return fromFsError(err);
  return new AppError(500, "internal", "Internal server error.", { cause: err });
}

/** An error the socket/REST layers pass on as `{code, message}` (code is `${type}:${surface}`). */
export class RuntimeError extends Error {
  override readonly name = "RuntimeError";
  constructor(
    readonly code: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

export function isRuntimeError(e: unknown): e is RuntimeError {
  return e instanceof Error && e.name === "RuntimeError" && typeof (e as RuntimeError).code === "string";
}
