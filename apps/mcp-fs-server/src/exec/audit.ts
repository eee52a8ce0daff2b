import { createHash } from "node:crypto";
import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { isInside, type Root } from "@textide/shared/node";
import type { RunOutcome } from "./protocol.js";

export interface AuditEntry {
  correlationId: string;
  /** Whose turn it was (session or connection id); logged as a short hash, never as is. */
  caller?: string;
  /** The user whose own MCP token made the call (team deployments); absent for the shared token. */
  user?: string | undefined;
  /** The language of `code`; absent means JavaScript (exec_run_js). */
  language?: "javascript" | "python" | "sql";
  code: string;
  timeoutMs: number;
  memoryMb: number;
  sandbox: string;
  outcome: Omit<RunOutcome, "timings"> & { queueMs: number; timings: Record<string, number> };
}

/** Appends one JSON line per exec_run_js, exec_run_python or sql_query call. Refuses a location inside the roots. */
export class AuditLog {
  private ready: Promise<unknown>;

  constructor(
    readonly file: string,
    roots: readonly Root[],
  ) {
    const abs = path.resolve(file);
    for (const r of roots) {
      if (isInside(r.real, abs) || isInside(r.configured, abs)) {
        throw new Error(
          `The exec audit log (${abs}) must not be inside ${r.name}; choose a path outside the workspace roots.`,
        );
      }
    }
    this.file = abs;
    this.ready = mkdir(path.dirname(abs), { recursive: true });
  }

  async append(e: AuditEntry): Promise<void> {
    const o = e.outcome;
    const line = {
      time: new Date().toISOString(),
      correlationId: e.correlationId,
      language: e.language ?? "javascript",
      ...(e.user !== undefined ? { user: e.user } : {}),
      ...(e.caller !== undefined ? { caller: createHash("sha256").update(e.caller).digest("hex").slice(0, 12) } : {}),
      codeSha256: createHash("sha256").update(e.code).digest("hex"),
      codePreview: e.code.length > 300 ? `${e.code.slice(0, 300)}…` : e.code,
      codeChars: e.code.length,
      outcome: o.ok ? "ok" : o.error?.kind,
      ...(o.error ? { error: o.error.message.slice(0, 500) } : {}),
      outputs: o.outputs.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })),
      limits: { timeoutMs: e.timeoutMs, memoryMb: e.memoryMb },
      sandbox: e.sandbox,
      timings: { durationMs: o.durationMs, queueMs: Math.round(o.queueMs * 100) / 100, ...o.timings },
    };
    await this.ready;
    await appendFile(this.file, `${JSON.stringify(line)}\n`);
  }
}
