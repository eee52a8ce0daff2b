import { pino, type Logger } from "pino";

export type { Logger };

const ERROR_LEVEL = 50;

/** pino sets `lastLevel` on destinations that carry this symbol (documented for custom streams). */
const PINO_METADATA = Symbol.for("pino.metadata");

/** Destinations holding unwritten lines; one exit hook for all, so loggers can be many and short-lived. */
const unflushed = new Set<TurnBatchedDestination>();
process.once("exit", () => {
  for (const d of unflushed) d.flush();
});

/**
 * A pino destination that hands every line logged during one event-loop turn to `out` in a single
 * write, at the end of that turn. One write per tool call cost the stdio server about a fifth of its
 * CPU under concurrent load (docs/ARCHITECTURE.md, "Call logs leave once per turn"); batching keeps the
 * one-line-per-call log at sub-millisecond delay. Errors are written at once, and whatever is pending
 * is written when the process exits, so a crash does not swallow the lines that explain it.
 */
export class TurnBatchedDestination {
  readonly [PINO_METADATA] = true;
  lastLevel = 0;
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly out: NodeJS.WritableStream) {}

  write(line: string): boolean {
    this.pending.push(line);
    if (this.lastLevel >= ERROR_LEVEL) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      unflushed.add(this);
      setImmediate(() => this.flush());
    }
    return true;
  }

  /** Writes what is pending now; pino's `logger.flush(cb)` lands here with its callback. */
  flush(done?: (err?: Error) => void): void {
    this.scheduled = false;
    unflushed.delete(this);
    if (this.pending.length > 0) {
      const text = this.pending.join("");
      this.pending = [];
      this.out.write(text);
    }
    done?.();
  }
}

/** Structured logs on stderr only: stdout is the JSON-RPC channel under stdio. */
export function createLogger(level: string, destination: NodeJS.WritableStream = process.stderr): Logger {
  // Secrets are removed where arguments are summarised (tools/result.ts), not by pino's redact,
  // which would cost a path walk on every line.
  return pino({ level, base: { svc: "mcp-fs-server" } }, new TurnBatchedDestination(destination));
}
