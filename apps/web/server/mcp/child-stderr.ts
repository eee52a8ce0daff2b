import { StringDecoder } from "node:string_decoder";
import { mcpListeningRecord, mcpLogLine } from "@textide/shared";
import type { Logger } from "../log.js";
import { callFromRecord, parseLogRecord, type McpCallLog, type McpCallSource } from "./call-log.js";

/** pino's numeric levels by name. */
const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

const MAX_LINE_CHARS = 64 * 1024;

/** LOG_LEVEL for a bundled MCP server child: at most `info`, so that its per-call lines are written. */
export function childLogLevel(configured: string): string {
  return (LEVELS[configured] ?? LEVELS.warn!) <= LEVELS.info! ? configured : "info";
}

export interface ChildStderrDeps {
  calls: McpCallLog;
  source: McpCallSource;
  log: Logger;
  /** Prefix of the forwarded lines, e.g. `mcp:agent`. */
  label: string;
  /** LOG_LEVEL the user asked for: other lines below it are dropped (the child runs at `info` or lower). */
  level: string;
  /** Called with the URL of the child's `listening` record (a Streamable HTTP child). */
  onListening?: (url: string) => void;
}

/**
 * A bundled MCP server's stderr, chunk by chunk: tool-call records go to the call log, the listening
 * record to `onListening`, other pino lines
 * at or above the configured level and any non-JSON text (a crash) go to the web server's log.
 */
export function childStderr(deps: ChildStderrDeps): { write(chunk: string | Buffer): void; end(): void } {
  const threshold = LEVELS[deps.level] ?? LEVELS.warn!;
  const decoder = new StringDecoder("utf8");
  let partial = "";
  const line = (text: string): void => {
    if (text.trim() === "") return;
    const record = parseLogRecord(text);
    const call = record && callFromRecord(record, deps.source);
    if (call) {
      deps.calls.add(call);
      return;
    }
    const listening = mcpListeningRecord.safeParse(record);
    if (listening.success && deps.onListening) {
      deps.onListening(listening.data.url);
      return;
    }
    const logLine = mcpLogLine.safeParse(record);
    const level = logLine.success ? logLine.data.level : undefined;
    if (level !== undefined && level < threshold) return;
    const message = `[${deps.label}] ${text}`;
    if (level === undefined || level >= LEVELS.error!) deps.log.error(message);
    else if (level >= LEVELS.warn!) deps.log.warn(message);
    else deps.log.info(message);
  };
  return {
    write(chunk) {
      const lines = (partial + (typeof chunk === "string" ? chunk : decoder.write(chunk))).split("\n");
      partial = lines.pop() ?? "";
      // Text without newlines (a binary dump, a runaway print) must not grow without bound.
      if (partial.length > MAX_LINE_CHARS) {
        lines.push(partial);
        partial = "";
      }
      for (const l of lines) line(l);
    },
    end() {
      const rest = partial + decoder.end();
      partial = "";
      line(rest);
    },
  };
}

/** The agent runtime's settings that send its bundled MCP server's tool calls to the call log. */
export function agentCallCapture(
  calls: McpCallLog,
  log: Logger,
  level: string,
): { mcpLogLevel: string; onMcpStderr: (chunk: Buffer) => void } {
  const stderr = childStderr({ calls, source: "agent", log, label: "mcp:agent", level });
  return { mcpLogLevel: childLogLevel(level), onMcpStderr: (chunk) => stderr.write(chunk) };
}
