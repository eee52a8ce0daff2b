import { errorCode, type ErrorCode, type ErrorType, type Surface } from "@textide/shared";
import { isFsError, type FsError } from "@textide/shared/node";

/**
 * The web server's one error class. Its `type` says what went wrong; the surface (where) is its own
 * when given, else that of the route or socket event it escaped from (`codeOn`). REST answers
 * `{error: {code, message, ...details}}` with `status`; socket acks `{code, message}`.
 */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly type: ErrorType;
  readonly status: number;
  readonly surface: Surface | undefined;
  readonly details: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    type: ErrorType,
    message: string,
    options: {
      cause?: unknown;
      surface?: Surface;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = status;
    this.type = type;
    this.surface = options.surface;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  /** `${type}:${surface}`, on `fallback` unless the error names its own surface. */
  codeOn(fallback: Surface): ErrorCode {
    return errorCode(this.type, this.surface ?? fallback);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof Error && e.name === "AppError" && typeof (e as AppError).status === "number";
}

const STATUS: Record<ErrorType, number> = {
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
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  method_not_allowed: 405,
  unsupported_media_type: 415,
};

/** An error of the agent runtime (no HTTP request behind it): the status follows from the type. */
export function runtimeError(type: ErrorType, surface: Surface, message: string, cause?: unknown): AppError {
  return new AppError(STATUS[type], type, message, { surface, ...(cause !== undefined ? { cause } : {}) });
}

export function fromFsError(err: FsError): AppError {
  return new AppError(STATUS[err.code], err.code, err.message, { cause: err });
}

/** Any thrown value as an AppError; unknown exceptions become a generic 500 (details are logged, not sent). */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isFsError(err)) return fromFsError(err);
  return new AppError(500, "internal", "Internal server error.", { cause: err });
}
