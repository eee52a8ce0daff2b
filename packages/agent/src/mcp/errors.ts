/**
 * How a failed MCP tool call is classified. Domain errors (`isError` results) go back to the model
 * as tool errors; protocol and transport errors are retried and may go to a fallback server.
 */
export type McpErrorClass = "domain" | "protocol" | "transport";

export class McpToolError extends Error {
  override readonly name = "McpToolError";
  constructor(
    readonly errorClass: McpErrorClass,
    message: string,
    readonly server: string,
    readonly tool: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isMcpToolError(e: unknown): e is McpToolError {
  return e instanceof Error && e.name === "McpToolError";
}

/** JSON-RPC error codes mean the server answered but refused the request (protocol); anything else is transport. */
export function classifyCallError(err: unknown): Exclude<McpErrorClass, "domain"> {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== "number") return "transport";
  // -32001 is the SDK's request timeout and -32000 "connection closed": both are transport faults.
  if (code === -32001 || code === -32000) return "transport";
  // A JSON-RPC error answer reaches us as the SDK's McpError with the server's code, which may be
  // application-defined (outside the reserved range). Other numeric codes (HTTP statuses) are transport.
  if ((err as Error).name === "McpError") return "protocol";
  return code >= -32768 && code <= -32000 ? "protocol" : "transport";
}

export function isAbortError(err: unknown): boolean {
  // A server's JSON-RPC error (McpError) is an answer, never our cancellation, whatever its message says.
  return (
    err instanceof Error && (err.name === "AbortError" || (err.name !== "McpError" && /aborted/i.test(err.message)))
  );
}
