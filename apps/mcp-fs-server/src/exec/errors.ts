/** Why a sandboxed run failed; each kind tells the model what to change. */
export type ExecErrorKind = "syntax" | "runtime" | "timeout" | "memory" | "policy" | "limit";

/** A failure of user code or of a host API call it made, reported back as `error` in the result. */
export class ExecError extends Error {
  override readonly name = "ExecError";
  readonly kind: ExecErrorKind;

  constructor(kind: ExecErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

export function isExecError(e: unknown): e is ExecError {
  return e instanceof Error && e.name === "ExecError" && typeof (e as ExecError).kind === "string";
}
