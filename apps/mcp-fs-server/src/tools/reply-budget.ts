/**
 * The most one tool reply may weigh, serialised as JSON. Some mainstream clients cap one message:
 * the Python SDK refuses an SSE event over 1 MiB, and a 2025-11-25 HTTP reply is one event. The
 * budget leaves room for the JSON-RPC envelope and the `data:` framing.
 */
export const REPLY_BUDGET_BYTES = 1_000_000;

/** Bytes `text` takes inside a JSON string (escapes included). */
export function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}
