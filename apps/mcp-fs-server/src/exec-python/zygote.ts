import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createInterface } from "node:readline";
import type { ExecErrorKind } from "../exec/errors.js";
import type { Logger } from "../log.js";
import { PY_LIMITS } from "./limits.js";
import type { PythonSandbox } from "./sandbox-command.js";

/** What zygote.py answers for one run. `outputs` are paths below generated_assets, unchecked. */
export interface ZygoteResult {
  resultJson?: string;
  error?: { kind: ExecErrorKind; message: string; line?: number };
  logs: string;
  logsTruncated: boolean;
  outputs: string[];
  runMs: number;
  /** Some process of the run would not die: the sandbox must be replaced. */
  dirty?: boolean;
}

export interface ZygoteRequest {
  code: string;
  timeoutMs: number;
  memoryMb: number;
}

/**
 * One bubblewrap sandbox holding a warm Python zygote, which forks one child per run and serves
 * one run at a time. The zygote kills a run at its deadline itself; this side kills the whole
 * sandbox (SIGKILL to bwrap, whose PID namespace takes every process inside with it) when the
 * zygote does not answer in time or the call is cancelled.
 */
export class Zygote {
  readonly child: ChildProcess;
  readonly ready: Promise<{ warmupMs: number; vmKb: number }>;
  readonly topLevel: string;
  runs = 0;
  dead = false;
  private pending: ((r: ZygoteResult) => void) | undefined;
  private fatal: string | undefined;
  private nextId = 1;

  constructor(sandbox: PythonSandbox, log: Logger, onExit: (z: Zygote) => void) {
    this.topLevel = sandbox.topLevel;
    this.child = spawn(sandbox.command, sandbox.args, { stdio: ["pipe", "pipe", "pipe"], env: {} });
    this.child.stdin?.on("error", () => undefined); // a dead zygote's stdin: the exit handler reports it
    createInterface({ input: this.child.stderr! }).on("line", (line) =>
      log.warn({ zygote: this.child.pid, line }, "exec_run_python sandbox output"),
    );
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("the Python sandbox did not start in time")),
        PY_LIMITS.readyTimeoutMs,
      );
      createInterface({ input: this.child.stdout! }).on("line", (line) => {
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        if (msg.type === "ready") {
          clearTimeout(timer);
          resolve({ warmupMs: Number(msg.warmupMs), vmKb: Number(msg.vmKb) });
        } else if (msg.type === "fatal") {
          this.fatal = String(msg.message);
        } else if (msg.type === "result" && this.pending) {
          const done = this.pending;
          this.pending = undefined;
          done(msg as unknown as ZygoteResult);
        }
      });
      this.child.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      this.child.on("exit", (code, signal) => {
        clearTimeout(timer);
        this.dead = true;
        reject(new Error(this.fatal ?? `the Python sandbox exited (${signal ?? code})`));
        const done = this.pending;
        this.pending = undefined;
        done?.({
          error: {
            kind: "runtime",
            message:
              "The Python sandbox stopped before the run finished (did the code signal its parent process?); it has been restarted. Try again without that.",
          },
          logs: "",
          logsTruncated: false,
          outputs: [],
          runMs: 0,
        });
        onExit(this);
      });
    });
    this.ready.catch(() => undefined);
  }

  /** Sends one run; resolves with the zygote's answer, or a failure when the sandbox died. */
  run(req: ZygoteRequest): Promise<ZygoteResult> {
    this.runs++;
    return new Promise((resolve) => {
      this.pending = resolve;
      this.child.stdin?.write(`${JSON.stringify({ type: "run", id: this.nextId++, ...req })}\n`);
    });
  }

  /** Ends the sandbox and everything in it; a pending run is answered by the exit handler. */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.child.kill("SIGKILL");
  }

  /**
   * Kills the sandbox and waits (up to 5 s) until every process that was in it is gone: bwrap's
   * init dies with its parent, and the kernel then kills the rest of its PID namespace.
   */
  async killAndWait(): Promise<void> {
    const pids = this.child.pid !== undefined ? processTree(this.child.pid) : [];
    this.kill();
    for (let waited = 0; waited < 5000 && pids.some((p) => existsSync(`/proc/${p}`)); waited += 10) await sleep(10);
  }
}

/** A process and all its descendants, from /proc (Linux). */
export function processTree(root: number): number[] {
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const kids = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
        if (kids) stack.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // Exited meanwhile.
    }
  }
  return out;
}
