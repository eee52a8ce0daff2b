import { pino, type Logger } from "pino";

export type { Logger };

/** Structured logs on stderr only: stdout is the JSON-RPC channel under stdio. */
export function createLogger(level: string, destination: NodeJS.WritableStream = process.stderr): Logger {
  // Secrets are removed where arguments are summarised (tools/result.ts), not by pino's redact,
  // which would cost a path walk on every line.
  return pino({ level, base: { svc: "mcp-fs-server" } }, destination);
}
