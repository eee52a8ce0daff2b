import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../log.js";

/** What the web server records: who signed in or out, and who started which run on which thread. */
export type AuditRecord =
  | { kind: "sign-in"; user: string; address: string }
  | { kind: "sign-in-failed"; user: string; address: string; reason: "wrong" | "rate-limited" }
  | { kind: "sign-out"; user: string; address: string }
  | { kind: "run"; user: string; threadId: string; runId: string; resume?: "approve" | "reject" };

export interface WebAuditLog {
  readonly file: string;
  /** Appends one JSON line; never throws (a failed write is logged). */
  record(entry: AuditRecord): void;
}

/**
 * `audit.jsonl` in the data dir, one JSON line per entry with its time. Lines are appended in order by one
 * queue, so concurrent writes never interleave. The exec audit log (`exec-audit.jsonl`) is the MCP server's.
 */
export function createWebAuditLog(dataDir: string, log: Logger): WebAuditLog {
  const file = path.join(dataDir, "audit.jsonl");
  let queue: Promise<unknown> = mkdir(dataDir, { recursive: true });
  return {
    file,
    record(entry) {
      const line = `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`;
      queue = queue
        .then(() => appendFile(file, line))
        .catch((err: unknown) => log.error("audit log write failed", { file, err: String(err) }));
    },
  };
}
