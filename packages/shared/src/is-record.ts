/** A JSON object (not null, not an array), such as a parsed record or a tool's structured result. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
