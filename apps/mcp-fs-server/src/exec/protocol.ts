import type { ExecErrorKind } from "./errors.js";

/** Parent → runner: one run. Paths are the roots' real paths, resolved once by the parent. */
export interface RunRequest {
  type: "run";
  id: number;
  code: string;
  timeoutMs: number;
  memoryMb: number;
  correlationId: string;
}

export interface RunnerInit {
  projectRoot: string;
  assetsRoot: string;
}

export interface WrittenFile {
  /** Workspace path (`generated_assets/…`). */
  path: string;
  bytes: number;
  mime: string;
  sha256: string;
}

export interface RunOutcome {
  ok: boolean;
  /** JSON text of the code's return value (capped), absent when it returned undefined. */
  resultJson?: string;
  logs: string;
  logsTruncated: boolean;
  outputs: WrittenFile[];
  error?: { kind: ExecErrorKind; message: string; line?: number };
  durationMs: number;
  timings: { isolateMs: number; hostMs: number };
}

/** Where a run is, for progress reports: `rendering` names the chart being drawn. */
export type RunStage = { stage: "running" } | { stage: "rendering"; chart: string };

/** Runner → parent. */
export type RunnerMessage =
  | { type: "ready"; warmupMs: number }
  | { type: "stage"; id: number; stage: "rendering"; chart: string }
  | { type: "result"; id: number; outcome: RunOutcome; recycle: boolean }
  | { type: "fatal"; message: string };
