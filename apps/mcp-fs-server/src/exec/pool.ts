import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Logger } from "../log.js";
import { defaultRunnerCount, EXEC_LIMITS } from "./limits.js";
import type { RunnerMessage, RunOutcome, RunRequest, RunStage } from "./protocol.js";
import { runnerCommand, type SandboxMode } from "./sandbox-command.js";

/** The compiled runner beside this module; from sources (tests via vitest) the built one in dist/. */
const RUNNER_PATH = [new URL("./runner.js", import.meta.url), new URL("../../dist/exec/runner.js", import.meta.url)]
  .map((u) => fileURLToPath(u))
  .find((p) => existsSync(p))!;
const READY_TIMEOUT_MS = 20_000;

export interface ExecPoolOptions {
  projectRoot: string;
  assetsRoot: string;
  sandbox: SandboxMode;
  log: Logger;
  /** Most runners working side by side (default: `defaultRunnerCount()`). */
  size?: number | undefined;
  runsPerRunner?: number;
  /** A runner beyond the first stops after idling this long (default `EXEC_LIMITS.runnerIdleMs`). */
  idleMs?: number;
  /** The runner script (tests substitute a scripted one to exercise the supervisor). */
  runnerPath?: string;
  /** How logs name the runners, and the warning when bubblewrap is missing (default: exec_run_js's). */
  names?: { runner: string; unsandboxed: string };
}

const EXEC_NAMES = {
  runner: "exec runner",
  unsandboxed: "bubblewrap (bwrap) is not available: exec_run_js runs in isolated-vm without an OS-level sandbox",
};

export type RunInput = Omit<RunRequest, "type" | "id">;

/** A run's outcome plus how long it waited for a free runner. */
export type PoolOutcome = RunOutcome & { queueMs: number };

interface Pending {
  resolve: (o: RunOutcome) => void;
  onStage: ((s: RunStage) => void) | undefined;
  timeoutMs: number;
  killTimer: NodeJS.Timeout;
}

type RunnerState = "starting" | "idle" | "busy";

/** One runner child process and the run it is doing. */
class Runner {
  readonly child: ChildProcess;
  readonly ready: Promise<number>;
  runs = 0;
  dead = false;
  state: RunnerState = "starting";
  /** It answered "ready" once (a runner that never did is a failed start, not a crash). */
  started = false;
  idleTimer: NodeJS.Timeout | undefined;
  pending: Pending | undefined;
  private fatal: string | undefined;

  constructor(
    command: { command: string; args: string[] },
    log: Logger,
    onExit: (r: Runner) => void,
    name = EXEC_NAMES.runner,
  ) {
    // stdout is piped, never inherited: the MCP server's own stdout is the JSON-RPC channel.
    this.child = spawn(command.command, command.args, {
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_ENV: "production" },
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on("line", (line) =>
          log.warn({ runner: this.child.pid, line }, `${name} output`),
        );
    }
    this.ready = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the sandbox runner did not start in time")), READY_TIMEOUT_MS);
      this.child.on("message", (m: RunnerMessage) => {
        if (m.type === "ready") {
          clearTimeout(timer);
          this.started = true;
          resolve(m.warmupMs);
        } else if (m.type === "fatal") {
          this.fatal = m.message;
          clearTimeout(timer);
          reject(new Error(`the sandbox runner failed: ${m.message}`));
        } else if (m.type === "stage" && this.pending) {
          this.pending.onStage?.({ stage: m.stage, chart: m.chart });
        } else if (m.type === "result" && this.pending) {
          const p = this.pending;
          this.pending = undefined;
          clearTimeout(p.killTimer);
          if (m.recycle) this.retire();
          p.resolve(m.outcome);
        }
      });
      this.child.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      this.child.on("exit", (code, signal) => {
        clearTimeout(timer);
        this.dead = true;
        reject(new Error(`the sandbox runner exited (${signal ?? code})`));
        const p = this.pending;
        this.pending = undefined;
        if (p) {
          clearTimeout(p.killTimer);
          p.resolve(crashOutcome(this.fatal, signal ?? String(code)));
        }
        onExit(this);
      });
    });
    this.ready.catch(() => undefined);
  }

  run(req: RunRequest, signal?: AbortSignal, onStage?: (s: RunStage) => void): Promise<RunOutcome> {
    // An abort that came while the call waited for this runner fires no "abort" event any more.
    if (signal?.aborted) return Promise.resolve(cancelledOutcome());
    this.runs++;
    return new Promise<RunOutcome>((resolve) => {
      // A cancelled call must stop burning CPU now, not at its deadline: the runner is replaced.
      const onAbort = () => {
        const p = this.pending;
        if (!p) return;
        this.pending = undefined;
        clearTimeout(p.killTimer);
        this.retire("SIGKILL");
        p.resolve(cancelledOutcome());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle = (o: RunOutcome) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(o);
      };
      // A run that overstays (a wedged isolate, a runaway host call) is killed, not awaited.
      const killTimer = setTimeout(() => {
        const p = this.pending;
        this.pending = undefined;
        this.retire("SIGKILL");
        p?.resolve(killedOutcome(req.timeoutMs));
      }, req.timeoutMs + EXEC_LIMITS.killGraceMs);
      this.pending = { resolve: settle, onStage, timeoutMs: req.timeoutMs, killTimer };
      this.child.send(req);
    });
  }

  retire(signal: NodeJS.Signals = "SIGTERM"): void {
    clearTimeout(this.idleTimer);
    if (this.dead) return;
    this.dead = true;
    this.child.kill(signal);
  }
}

/** A queued run. */
interface Job {
  input: RunInput;
  caller: string;
  signal: AbortSignal | undefined;
  queuedAt: number;
  resolve: (o: PoolOutcome) => void;
  onStage: ((s: RunStage) => void) | undefined;
  onAbort?: () => void;
}

/**
 * Round-robin over callers: each caller has its own FIFO lane, and every dispatch takes the head of
 * the lane that has waited longest for a turn, then sends that lane to the back. A caller with many
 * queued runs therefore gets one turn per round, like every other caller that is waiting.
 */
export class FairQueue<T> {
  /** Map order is the rotation order (a lane re-inserted goes to the back). */
  private readonly lanes = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(caller: string, item: T): void {
    const lane = this.lanes.get(caller);
    if (lane) lane.push(item);
    else this.lanes.set(caller, [item]);
    this.count++;
  }

  shift(): T | undefined {
    const next = this.lanes.entries().next();
    if (next.done) return undefined;
    const [caller, lane] = next.value;
    const item = lane.shift();
    this.lanes.delete(caller);
    if (lane.length > 0) this.lanes.set(caller, lane);
    this.count--;
    return item;
  }

  /** Takes one item out wherever it is; false when it is not queued (any more). */
  remove(caller: string, item: T): boolean {
    const lane = this.lanes.get(caller);
    const i = lane ? lane.indexOf(item) : -1;
    if (!lane || i < 0) return false;
    lane.splice(i, 1);
    if (lane.length === 0) this.lanes.delete(caller);
    this.count--;
    return true;
  }
}

/**
 * Supervises a small pool of warm runners: up to `size` runs go side by side, one per runner;
 * further calls wait in a queue that takes turns between callers (`FairQueue`). One runner is
 * started at once (in the background); more start when calls queue up, and an extra runner that
 * idles for `idleMs` stops again. A runner is replaced after `runsPerRunner` runs, after a
 * memory-limit disposal, and after any kill or crash; a dead runner never takes the MCP server down.
 */
export class ExecPool {
  readonly size: number;
  /** Live runners: starting, idle or busy (a retired one leaves at once). */
  private readonly runners = new Set<Runner>();
  private readonly queue = new FairQueue<Job>();
  private readonly active = new Set<Promise<void>>();
  private readonly runsPerRunner: number;
  private readonly idleMs: number;
  private nextId = 1;
  private closed = false;
  private runner: ReturnType<typeof runnerCommand> | undefined;

  constructor(private readonly opts: ExecPoolOptions) {
    this.size = Math.max(1, Math.min(EXEC_LIMITS.maxRunners, Math.floor(opts.size ?? defaultRunnerCount())));
    this.runsPerRunner = opts.runsPerRunner ?? EXEC_LIMITS.runsPerRunner;
    this.idleMs = opts.idleMs ?? EXEC_LIMITS.runnerIdleMs;
  }

  /** The sandbox the runners get: "none" where bubblewrap cannot run (mode auto) or is turned off. */
  get sandbox(): "bubblewrap" | "none" {
    return this.command.sandbox;
  }

  /**
   * How a runner is started, settled on first use: with mode auto that probes bubblewrap with a blocking
   * spawn (~20 ms), which the server's start-up should not wait for.
   */
  private get command(): ReturnType<typeof runnerCommand> {
    if (!this.runner) {
      this.runner = runnerCommand({
        mode: this.opts.sandbox,
        runnerPath: this.opts.runnerPath ?? RUNNER_PATH,
        projectRoot: this.opts.projectRoot,
        assetsRoot: this.opts.assetsRoot,
      });
      if (this.runner.sandbox === "none") this.opts.log.warn((this.opts.names ?? EXEC_NAMES).unsandboxed);
    }
    return this.runner;
  }

  /** Starts one runner in the background so the first call does not pay for it. */
  warm(): void {
    if (!this.closed && this.runners.size === 0) this.spawn();
  }

  /** Runners alive now, by state (tests and logs). */
  stats(): { starting: number; idle: number; busy: number; queued: number } {
    const s = { starting: 0, idle: 0, busy: 0, queued: this.queue.size };
    for (const r of this.runners) s[r.state]++;
    return s;
  }

  /**
   * Runs code for `caller` (a session or connection id: callers take turns when runs queue up).
   * Resolves with an outcome for every failure, including crashes, kills and cancellation.
   * `onStage` hears when the run leaves the queue and when it renders a chart.
   */
  run(
    input: RunInput,
    signal?: AbortSignal,
    caller = "default",
    onStage?: (s: RunStage) => void,
  ): Promise<PoolOutcome> {
    const queuedAt = performance.now();
    if (signal?.aborted) return Promise.resolve({ ...cancelledOutcome(), queueMs: 0 });
    if (this.closed) return Promise.resolve({ ...closedOutcome(), queueMs: 0 });
    return new Promise<PoolOutcome>((resolve) => {
      const job: Job = { input, caller, signal, queuedAt, resolve, onStage };
      if (signal) {
        // Cancelled while waiting: it leaves the queue at once and never reaches a runner.
        job.onAbort = () => {
          if (this.queue.remove(caller, job)) resolve({ ...cancelledOutcome(), queueMs: since(queuedAt) });
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(caller, job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (let job = this.queue.shift(); job; job = this.queue.shift()) this.settle(job, closedOutcome());
    for (const r of this.runners) r.retire();
    this.runners.clear();
    await Promise.all(this.active);
  }

  /** Hands queued runs to idle runners, and starts runners for the runs no runner will take soon. */
  private pump(): void {
    if (this.closed) return;
    for (const r of this.runners) {
      if (this.queue.size === 0) return;
      if (r.state === "idle" && !r.dead) this.dispatch(r, this.queue.shift()!);
    }
    let starting = 0;
    for (const r of this.runners) if (r.state === "starting") starting++;
    for (let n = Math.min(this.queue.size - starting, this.size - this.runners.size); n > 0; n--) this.spawn();
  }

  private dispatch(runner: Runner, job: Job): void {
    clearTimeout(runner.idleTimer);
    runner.state = "busy";
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    const queueMs = since(job.queuedAt);
    job.onStage?.({ stage: "running" });
    const done = runner
      .run({ type: "run", id: this.nextId++, ...job.input }, job.signal, job.onStage)
      .then((outcome) => {
        if (runner.runs >= this.runsPerRunner) runner.retire();
        job.resolve({ ...outcome, queueMs });
        if (runner.dead) this.drop(runner);
        else this.idle(runner);
      })
      .finally(() => this.active.delete(done));
    this.active.add(done);
  }

  private idle(runner: Runner): void {
    runner.state = "idle";
    this.pump();
    if (runner.state !== "idle" || this.closed) return;
    // Extra runners give their memory back when the load is gone; one stays warm.
    runner.idleTimer = setTimeout(() => {
      if (runner.state === "idle" && this.runners.size > 1) {
        runner.retire();
        this.runners.delete(runner);
      }
    }, this.idleMs);
    runner.idleTimer.unref();
  }

  /** A runner is gone (retired, killed, crashed): queued runs get another, and one stays warm. */
  private drop(runner: Runner): void {
    // One that never started is handled by startFailed (its `ready` rejects whenever it dies).
    if (!runner.started || !this.runners.delete(runner) || this.closed) return;
    this.pump();
    if (this.runners.size === 0 && runner.started) this.spawn();
  }

  private spawn(): void {
    const runner = new Runner(this.command, this.opts.log, (r) => this.drop(r), this.opts.names?.runner);
    this.runners.add(runner);
    runner.ready.then(
      () => {
        if (!runner.dead) this.idle(runner);
      },
      (err: Error) => this.startFailed(runner, err),
    );
  }

  private startFailed(runner: Runner, err: Error): void {
    this.runners.delete(runner);
    runner.retire("SIGKILL");
    if (this.closed) return;
    this.opts.log.error({ err: err.message }, `${(this.opts.names ?? EXEC_NAMES).runner} failed to start`);
    // It fails the next queued run, not all of them (the next start may work), and no start is retried
    // without a run waiting for it, so a runner that can never start cannot make the pool spin.
    const job = this.queue.shift();
    if (job) this.settle(job, crashOutcome(undefined, `start: ${err.message}`));
    this.pump();
  }

  private settle(job: Job, outcome: RunOutcome): void {
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    job.resolve({ ...outcome, queueMs: since(job.queuedAt) });
  }
}

const since = (t: number) => performance.now() - t;

function closedOutcome(): RunOutcome {
  return {
    ok: false,
    logs: "",
    logsTruncated: false,
    outputs: [],
    error: { kind: "runtime", message: "The server is shutting down; the code was not run." },
    durationMs: 0,
    timings: { isolateMs: 0, hostMs: 0 },
  };
}

function cancelledOutcome(): RunOutcome {
  return {
    ok: false,
    logs: "",
    logsTruncated: false,
    outputs: [],
    error: { kind: "runtime", message: "Cancelled by the client before the code finished." },
    durationMs: 0,
    timings: { isolateMs: 0, hostMs: 0 },
  };
}

function killedOutcome(timeoutMs: number): RunOutcome {
  return {
    ok: false,
    logs: "",
    logsTruncated: false,
    outputs: [],
    error: {
      kind: "timeout",
      message: `The code did not stop within ${timeoutMs} ms (+${EXEC_LIMITS.killGraceMs} ms grace) and its sandbox was killed. Avoid unbounded loops and very large single allocations.`,
    },
    durationMs: timeoutMs + EXEC_LIMITS.killGraceMs,
    timings: { isolateMs: 0, hostMs: 0 },
  };
}

function crashOutcome(fatal: string | undefined, how: string): RunOutcome {
  const memory = fatal !== undefined || how === "SIGABRT" || how === "70";
  return {
    ok: false,
    logs: "",
    logsTruncated: false,
    outputs: [],
    error: memory
      ? {
          kind: "memory",
          message: `The sandbox ran out of memory and was restarted (${fatal ?? how}). Avoid very large allocations; process data in smaller pieces.`,
        }
      : {
          kind: "runtime",
          message: `The sandbox process stopped unexpectedly (${how}); it has been restarted. Try again.`,
        },
    durationMs: 0,
    timings: { isolateMs: 0, hostMs: 0 },
  };
}
