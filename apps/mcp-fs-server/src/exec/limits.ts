import os from "node:os";

/** Caps of one exec_run_js call; the tool description quotes them to the model. */
export const EXEC_LIMITS = {
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: 30_000,
  defaultMemoryMb: 128,
  minMemoryMb: 16,
  maxMemoryMb: 512,
  /** Grace after the deadline before the parent SIGKILLs a runner that did not answer. */
  killGraceMs: 2_000,
  maxCodeChars: 200_000,
  maxLogBytes: 64 * 1024,
  maxResultBytes: 256 * 1024,
  maxFilesPerRun: 20,
  maxBytesPerFile: 10 * 1024 * 1024,
  maxBytesPerRun: 50 * 1024 * 1024,
  /** Largest file readTable/readText will load. */
  maxReadBytes: 50 * 1024 * 1024,
  maxListedFiles: 2_000,
  /** A runner is replaced after this many runs (fresh heap, no slow leaks). */
  runsPerRunner: 100,
  /** Most runners the pool may run at once (the `--exec-runners` setting is checked against it). */
  maxRunners: 32,
  /** A runner beyond the first that stayed idle this long is stopped (its memory is returned). */
  runnerIdleMs: 60_000,
} as const;

/**
 * Runners the pool may run side by side when not configured: one per core, at least 2 (so one
 * long run never blocks everyone) and at most 4 (each runner holds a warm V8 heap of its own).
 */
export function defaultRunnerCount(): number {
  return Math.max(2, Math.min(4, os.availableParallelism()));
}

/** Extensions writeFile may create; chart() writes .png/.svg itself. */
export const WRITABLE_EXTENSIONS = new Set([
  ".csv",
  ".tsv",
  ".json",
  ".jsonl",
  ".ndjson",
  ".geojson",
  ".txt",
  ".md",
  ".svg",
  ".png",
]);
