/** Rate limits, overload and network blips are worth retrying; bad requests and auth are not. */
export function isTransientModelError(err: unknown): boolean {
  const e = err as { status?: number; code?: string; name?: string; message?: string };
  if (e?.name === "AbortError") return false;
  if (typeof e?.status === "number") return e.status === 408 || e.status === 409 || e.status === 429 || e.status >= 500;
  return /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed|overloaded/i.test(
    `${e?.code ?? ""} ${e?.message ?? ""}`,
  );
}
