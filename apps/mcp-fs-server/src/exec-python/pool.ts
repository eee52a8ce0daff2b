import type { PathPolicy } from "@textide/shared/node";
import { FairQueue } from "../exec/pool.js";
import type { RunOutcome } from "../exec/protocol.js";
import type { Logger } from "../log.js";
import { PY_LIMITS } from "./limits.js";
import { collectOutputs } from "./outputs.js";
import { projectEntries, pythonSandbox } from "./sandbox-command.js";
import { Zygote, type ZygoteRequest, type ZygoteResult } from "./zygote.js";

export interface PythonPoolOptions {
  projectRoot: string;
  assetsRoot: string;
  policy: PathPolicy;
  log: Logger;
  /** Warm sandboxes side by side (default `PY_LIMITS.defaultZygotes`). */
  size?: number | undefined;
}

/** A Python run's outcome: exec_run_js's shape, its timings, and the images to return. */
export type PythonOutcome = Omit<RunOutcome, "timings"> & {
  queueMs: number;
  timings: { runMs: number; collectMs: number };
  images: { data: string; mimeType: string }[];
};

interface Job {
  req: ZygoteRequest;
  caller: string;
  signal: AbortSignal | undefined;
  queuedAt: number;
  resolve: (o: PythonOutcome) => void;
  onAbort?: () => void;
}

/**
 * Keeps `size` warm Python sandboxes (zygote.py under bubblewrap), each doing one run at a time, so
 * that many runs go side by side; further calls wait in a queue that takes turns between callers
 * (exec_run_js's FairQueue). A sandbox is replaced after a cancellation, a missed deadline, a crash,
 * `runsPerZygote` runs, or when the project's top-level entries changed (its view is built from them).
 */
export class PythonPool {
  readonly size: number;
  private readonly zygotes = new Set<Zygote>();
  private readonly idle: Zygote[] = [];
  private readonly queue = new FairQueue<Job>();
  private closed = false;

  constructor(private readonly opts: PythonPoolOptions) {
    this.size = Math.max(1, Math.min(PY_LIMITS.maxZygotes, Math.floor(opts.size ?? PY_LIMITS.defaultZygotes)));
  }

  /** Starts every sandbox in the background so the first calls do not wait for the imports. */
  warm(): void {
    while (!this.closed && this.zygotes.size < this.size) this.spawn();
  }

  /** PIDs of the bwrap processes (each holding one zygote), for RSS reports and tests. */
  pids(): number[] {
    return [...this.zygotes].flatMap((z) => (z.child.pid !== undefined ? [z.child.pid] : []));
  }

  run(req: ZygoteRequest, signal?: AbortSignal, caller = "default"): Promise<PythonOutcome> {
    const queuedAt = performance.now();
    if (signal?.aborted) return Promise.resolve(failed("runtime", CANCELLED, 0));
    if (this.closed) return Promise.resolve(failed("runtime", CLOSED, 0));
    return new Promise((resolve) => {
      const job: Job = { req, caller, signal, queuedAt, resolve };
      if (signal) {
        job.onAbort = () => {
          if (this.queue.remove(caller, job)) resolve(failed("runtime", CANCELLED, since(queuedAt)));
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(caller, job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (let job = this.queue.shift(); job; job = this.queue.shift()) job.resolve(failed("runtime", CLOSED, 0));
    const exits = [...this.zygotes].map((z) => new Promise((r) => (z.dead ? r(undefined) : z.child.once("exit", r))));
    for (const z of this.zygotes) z.kill();
    this.zygotes.clear();
    await Promise.all(exits);
  }

  private pump(): void {
    if (this.closed) return;
    let topLevel: string | undefined;
    while (this.queue.size > 0 && this.idle.length > 0) {
      // The sandbox idle longest: it has had the most time to fork its next child ahead.
      const z = this.idle.shift()!;
      topLevel ??= this.currentTopLevel();
      if (z.dead || z.topLevel !== topLevel || z.runs >= PY_LIMITS.runsPerZygote) {
        this.retire(z);
        continue;
      }
      void this.dispatch(z, this.queue.shift()!);
    }
    this.warm();
  }

  private currentTopLevel(): string {
    try {
      return projectEntries(this.opts.projectRoot)
        .map((e) => e.name)
        .join("/");
    } catch {
      return "";
    }
  }

  private async dispatch(z: Zygote, job: Job): Promise<void> {
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    const queueMs = since(job.queuedAt);
    if (job.signal?.aborted) {
      job.resolve(failed("runtime", CANCELLED, queueMs));
      this.idle.push(z);
      this.pump();
      return;
    }
    const started = performance.now();
    const answer = await new Promise<ZygoteResult | "cancelled" | "overdue">((resolve) => {
      // A cancelled call stops now: the sandbox and every process in it are killed, not asked.
      const onAbort = () => resolve("cancelled");
      job.signal?.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => resolve("overdue"), job.req.timeoutMs + PY_LIMITS.killGraceMs);
      void z.run(job.req).then((r) => {
        clearTimeout(timer);
        job.signal?.removeEventListener("abort", onAbort);
        resolve(r);
      });
    });
    if (typeof answer === "string") {
      this.zygotes.delete(z);
      await z.killAndWait();
      job.resolve(
        answer === "cancelled"
          ? failed("runtime", CANCELLED, queueMs, started)
          : failed(
              "timeout",
              `Time limit of ${job.req.timeoutMs} ms reached; the sandbox was killed.`,
              queueMs,
              started,
            ),
      );
      this.pump();
      return;
    }
    if (answer.dirty) {
      // A process of the run outlived the zygote's cleanup: nothing of it may outlive the call.
      this.zygotes.delete(z);
      await z.killAndWait();
    } else if (z.dead) this.zygotes.delete(z);
    else this.idle.push(z);
    const collectStart = performance.now();
    const { files, images } = await collectOutputs(this.opts.policy, answer.outputs);
    job.resolve({
      ok: answer.error === undefined,
      ...(answer.resultJson !== undefined ? { resultJson: answer.resultJson } : {}),
      logs: answer.logs,
      logsTruncated: answer.logsTruncated,
      outputs: files,
      ...(answer.error ? { error: answer.error } : {}),
      durationMs: round(performance.now() - started),
      queueMs,
      timings: { runMs: answer.runMs, collectMs: round(performance.now() - collectStart) },
      images,
    });
    this.pump();
  }

  private spawn(): void {
    const z = new Zygote(pythonSandbox(this.opts), this.opts.log, (dead) => {
      this.zygotes.delete(dead);
      const i = this.idle.indexOf(dead);
      if (i >= 0) this.idle.splice(i, 1);
    });
    this.zygotes.add(z);
    z.ready.then(
      () => {
        if (z.dead || this.closed) return;
        this.idle.push(z);
        this.pump();
      },
      (err: Error) => {
        this.zygotes.delete(z);
        z.kill();
        if (this.closed) return;
        this.opts.log.error({ err: err.message }, "exec_run_python sandbox failed to start");
        // The next queued run fails with the reason; no restart without a run waiting for one.
        const job = this.queue.shift();
        if (job) {
          if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
          job.resolve(failed("runtime", `The Python sandbox could not start: ${err.message}`, since(job.queuedAt)));
          if (this.queue.size > 0) this.warm();
        }
      },
    );
  }

  private retire(z: Zygote): void {
    this.zygotes.delete(z);
    z.kill();
  }
}

const CANCELLED = "Cancelled by the client before the code finished.";
const CLOSED = "The server is shutting down; the code was not run.";
const since = (t: number) => performance.now() - t;
const round = (n: number) => Math.round(n * 100) / 100;

function failed(kind: "runtime" | "timeout", message: string, queueMs: number, started?: number): PythonOutcome {
  return {
    ok: false,
    logs: "",
    logsTruncated: false,
    outputs: [],
    error: { kind, message },
    durationMs: started === undefined ? 0 : round(performance.now() - started),
    queueMs,
    timings: { runMs: 0, collectMs: 0 },
    images: [],
  };
}
