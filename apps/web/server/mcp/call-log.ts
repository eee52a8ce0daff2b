import { randomUUID } from "node:crypto";
import { mcpToolCallRecord, type McpCallEvent } from "@textide/shared";

export type McpCallSource = McpCallEvent["source"];

/** How many calls `GET /api/mcp-calls` and a freshly opened console get. */
const CALL_LOG_SIZE = 500;

/** A call as read from a log line: the event without its id, and the call's correlation id. */
export type ParsedCall = Omit<McpCallEvent, "id"> & { correlationId?: string };

/** A JSON line of the MCP server's log as its record; undefined for anything else (a crash trace, stray text). */
export function parseLogRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const record: unknown = JSON.parse(line);
    return typeof record === "object" && record !== null ? (record as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The call a `tool_call` record describes (`mcpToolCallRecord`); undefined for every other record. */
export function callFromRecord(record: Record<string, unknown>, source: McpCallSource): ParsedCall | undefined {
  const parsed = mcpToolCallRecord.safeParse(record);
  if (!parsed.success) return undefined;
  const { time, tool, ms, outcome, args, correlationId } = parsed.data;
  const at = time === undefined ? new Date() : new Date(time);
  return {
    at: Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString(),
    source,
    tool,
    durationMs: ms,
    status: outcome,
    ...(args !== undefined ? { args } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
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
