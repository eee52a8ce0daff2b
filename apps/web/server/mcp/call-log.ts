import { randomUUID } from "node:crypto";
import { mcpCallEvent, type McpCallEvent } from "@textide/shared";

export type McpCallSource = McpCallEvent["source"];

/** How many calls `GET /api/mcp-calls` and a freshly opened console get. */
const CALL_LOG_SIZE = 500;

/** The `msg` of the MCP server's per-call pino lines (apps/mcp-fs-server/src/tools/result.ts). */
const CALL_MESSAGES = new Set(["tool call", "tool call failed unexpectedly"]);

/** A call as read from a log line: the event without its id, and the call's correlation id. */
export type ParsedCall = Omit<McpCallEvent, "id"> & { correlationId?: string };

/**
 * Reads one stderr line of the bundled MCP server: its per-call log line becomes an `McpCallEvent`
 * (without an id, which the log assigns); anything else (other logs, stray text) gives undefined.
 */
/** A pino JSON line as its record; undefined for anything else (a crash trace, stray text). */
export function parseLogRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const record: unknown = JSON.parse(line);
    return typeof record === "object" && record !== null ? (record as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The call a "tool call" log record describes; undefined for every other record. */
export function callFromRecord(record: Record<string, unknown>, source: McpCallSource): ParsedCall | undefined {
  if (typeof record.msg !== "string" || !CALL_MESSAGES.has(record.msg)) return undefined;
  const time = typeof record.time === "number" ? new Date(record.time) : new Date();
  const parsed = mcpCallEvent.omit({ id: true }).safeParse({
    at: Number.isNaN(time.getTime()) ? new Date().toISOString() : time.toISOString(),
    source,
    tool: record.tool,
    durationMs: record.ms,
    status: record.outcome,
    args: record.args,
  });
  if (!parsed.success) return undefined;
  return {
    ...parsed.data,
    ...(typeof record.correlationId === "string" ? { correlationId: record.correlationId } : {}),
  };
}

/** The last `CALL_LOG_SIZE` MCP tool calls of both bundled servers, oldest first, with listeners. */
export class McpCallLog {
  private readonly calls: McpCallEvent[] = [];
  private readonly ids = new Set<string>();
  private readonly listeners = new Set<(call: McpCallEvent) => void>();

  constructor(private readonly size = CALL_LOG_SIZE) {}

  /** Records a parsed call; its id is the correlation id, made unique if a retry reused it. */
  add(call: ParsedCall): McpCallEvent {
    const { correlationId, ...rest } = call;
    let id = correlationId ?? randomUUID();
    for (let n = 2; this.ids.has(id); n++) id = `${correlationId}#${n}`;
    const event: McpCallEvent = { id, ...rest };
    this.calls.push(event);
    this.ids.add(id);
    if (this.calls.length > this.size) this.ids.delete(this.calls.shift()!.id);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  list(): McpCallEvent[] {
    return [...this.calls];
  }

  /** Returns the unsubscribe function. */
  onCall(listener: (call: McpCallEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
