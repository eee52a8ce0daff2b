import { z } from "zod";

/**
 * The records of the MCP server's structured log (pino JSON lines on stderr) that other programs read:
 * the web server builds its call-log console from `tool_call` records and learns where its HTTP child
 * listens from the `listening` record. The `event` field names the record; `msg` is for people only.
 */
export const MCP_LOG_EVENT = { toolCall: "tool_call", listening: "listening" } as const;

/** Any pino line: its numeric level decides whether the web server forwards it. */
export const mcpLogLine = z.looseObject({ level: z.number(), time: z.number().optional() });

/** One finished tool call (apps/mcp-fs-server/src/tools/result.ts). */
export const mcpToolCallRecord = z.looseObject({
  event: z.literal(MCP_LOG_EVENT.toolCall),
  /** pino's epoch milliseconds. */
  time: z.number().optional(),
  tool: z.string().min(1),
  correlationId: z.string().optional(),
  /** Argument summary (long strings shortened, secrets redacted). */
  args: z.unknown().optional(),
  ms: z.number().nonnegative(),
  /** `ok`, `tool_error`, or the error code. */
  outcome: z.string().min(1),
});
export type McpToolCallRecord = z.infer<typeof mcpToolCallRecord>;

/** The server accepts connections over Streamable HTTP at `url` (apps/mcp-fs-server/src/transports/http-server.ts). */
export const mcpListeningRecord = z.looseObject({
  event: z.literal(MCP_LOG_EVENT.listening),
  url: z.url({ protocol: /^https?$/ }),
  auth: z.enum(["bearer", "none"]),
});
export type McpListeningRecord = z.infer<typeof mcpListeningRecord>;
