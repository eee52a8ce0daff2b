import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Logger } from "../log.js";
import { EXEC_LIMITS } from "./limits.js";
import type { RunnerMessage, RunOutcome, RunRequest } from "./protocol.js";
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
  runsPerRunner?: number;
  /** The runner script (tests substitute a scripted one to exercise the supervisor). */
  runnerPath?: string;
}

export type RunInput = Omit<RunRequest, "type" | "id">;

interface Pending {
  resolve: (o: RunOutcome) => void;
  timeoutMs: number;
  killTimer: NodeJS.Timeout;
}

/** One runner child process and the run it is doing. */
class Runner {
  readonly child: ChildProcess;
  readonly ready: Promise<number>;
  runs = 0;
  dead = false;
  pending: Pending | undefined;
  private fatal: string | undefined;

  constructor(command: { command: string; args: string[] }, log: Logger, onExit: (r: Runner) => void) {
    // stdout is piped, never inherited: the MCP server's own stdout is the JSON-RPC channel.
    this.child = spawn(command.command, command.args, {
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_ENV: "production" },
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on("line", (line) =>
          log.warn({ runner: this.child.pid, line }, "exec runner output"),
        );
    }
    this.ready = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the sandbox runner did not start in time")), READY_TIMEOUT_MS);
      this.child.on("message", (m: RunnerMessage) => {
        if (m.type === "ready") {
          clearTimeout(timer);
          resolve(m.warmupMs);
        } else if (m.type === "fatal") {
          this.fatal = m.message;
          clearTimeout(timer);
          reject(new Error(`the sandbox runner failed: ${m.message}`));
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

  run(req: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    // An abort that came while the call waited for this runner to start fires no "abort" event any more.
    if (signal?.aborted) return Promise.resolve(cancelledOutcome());
    this.runs++;
    return new Promise<RunOutcome>((resolve) => {
      // A cancelled call must stop burning CPU now, not at its deadline: the runner is replaced.
      signal?.addEventListener(
        "abort",
        () => {
          const p = this.pending;
          if (!p) return;
          this.pending = undefined;
          clearTimeout(p.killTimer);
          this.retire("SIGKILL");
          p.resolve(cancelledOutcome());
        },
        { once: true },
      );
      // A run that overstays (a wedged isolate, a runaway host call) is killed, not awaited.
      const killTimer = setTimeout(() => {
        const p = this.pending;
        this.pending = undefined;
        this.retire("SIGKILL");
        p?.resolve(killedOutcome(req.timeoutMs));
      }, req.timeoutMs + EXEC_LIMITS.killGraceMs);
      this.pending = { resolve, timeoutMs: req.timeoutMs, killTimer };
      this.child.send(req);
    });
  }

  retire(signal: NodeJS.Signals = "SIGTERM"): void {
    if (this.dead) return;
    this.dead = true;
    this.child.kill(signal);
  }
}

/**
 * Supervises the warm runner: one run at a time (callers queue), a fresh runner after
 * `runsPerRunner` runs, after a memory-limit disposal, and after any kill or crash. A dead runner
 * never takes the MCP server down; the next call starts a new one.
 */
export class ExecPool {
  private runner: Runner | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private readonly command;
  readonly sandbox: "bubblewrap" | "none";

  constructor(private readonly opts: ExecPoolOptions) {
    this.command = runnerCommand({
      mode: opts.sandbox,
      runnerPath: opts.runnerPath ?? RUNNER_PATH,
      projectRoot: opts.projectRoot,
      assetsRoot: opts.assetsRoot,
    });
    this.sandbox = this.command.sandbox;
    if (this.sandbox === "none") {
      opts.log.warn("bubblewrap (bwrap) is not available: exec_run_js runs in isolated-vm without an OS-level sandbox");
    }
  }

  /** Starts a runner now so the first call does not pay for it. */
  warm(): void {
    this.current();
  }

  /** Runs code; resolves with an outcome for every failure, including crashes and kills. */
  run(input: RunInput, signal?: AbortSignal): Promise<RunOutcome & { queueMs: number }> {
    const queued = performance.now();
    const task = this.queue.then(async () => {
      const queueMs = performance.now() - queued;
      if (signal?.aborted) return { ...cancelledOutcome(), queueMs };
      const runner = this.current();
      try {
        await runner.ready;
      } catch (err) {
        this.runner = undefined;
        return { ...crashOutcome(undefined, `start: ${(err as Error).message}`), queueMs };
      }
      const outcome = await runner.run({ type: "run", id: this.nextId++, ...input }, signal);
      if (runner.runs >= (this.opts.runsPerRunner ?? EXEC_LIMITS.runsPerRunner)) runner.retire();
      if (runner.dead) this.runner = undefined;
      return { ...outcome, queueMs };
    });
    this.queue = task.catch(() => undefined);
    return task;
  }

  async close(): Promise<void> {
    this.runner?.retire();
    this.runner = undefined;
    await this.queue;
  }

  private current(): Runner {
    if (!this.runner || this.runner.dead) {
      this.runner = new Runner(this.command, this.opts.log, (r) => {
        if (this.runner === r) this.runner = undefined;
      });
    }
    return this.runner;
  }
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
