import { pino, type Logger } from "pino";

export type { Logger };

/** Structured logs on stderr only: stdout is the JSON-RPC channel under stdio. */
export function createLogger(level: string, destination: NodeJS.WritableStream = process.stderr): Logger {
  return pino(
    {
      level,
      base: { svc: "mcp-fs-server" },
      redact: { paths: ["*.token", "*.apiKey", "*.password", "*.authorization", "*.secret"], censor: "[redacted]" },
    },
    destination,
  );
}
