import { EXEC_LIMITS } from "../exec/limits.js";

/** Caps of one exec_run_python call; the tool description quotes them to the model. */
export const PY_LIMITS = {
  defaultTimeoutMs: EXEC_LIMITS.defaultTimeoutMs,
  maxTimeoutMs: EXEC_LIMITS.maxTimeoutMs,
  /** Address space the run may add on top of what the pre-imported libraries already map. */
  defaultMemoryMb: 512,
  minMemoryMb: 32,
  maxMemoryMb: 1024,
  /** Enforced by zygote.py (RLIMIT_FSIZE, the log pipe, the result); quoted here for the description. */
  maxFileMb: 100,
  /** Disk use of all the files one run writes under generated_assets (checked by zygote.py as it runs). */
  maxRunMb: 200,
  maxLogBytes: 64 * 1024,
  maxResultBytes: 256 * 1024,
  /** Grace after the deadline before the server kills a sandbox whose zygote did not answer. */
  killGraceMs: 2_000,
  /** Files listed in `outputs` per run (the rest are written but not listed). */
  maxListedOutputs: 50,
  /** PNG/SVG outputs returned as image content: how many, and the most bytes each and in all. */
  maxImages: 3,
  maxImageBytes: 400 * 1024,
  maxImageTotalBytes: 600 * 1024,
  /** Warm sandboxes side by side: each serves one run at a time. */
  defaultZygotes: 2,
  maxZygotes: 8,
  /** A zygote is replaced after this many runs (a fresh interpreter now and then costs little). */
  runsPerZygote: 500,
  readyTimeoutMs: 30_000,
} as const;
