import { isThreadStoreUnavailable, THREAD_DB_DOWN, type Agent, type RunResult } from "@textide/agent";
import type { AgentEvent } from "@textide/shared";
import { isAppError, runtimeError } from "../errors.js";
import type { Logger } from "../log.js";

export interface RunHandle {
  runId: string;
  threadId: string;
}

export type RunInput = { text: string } | { resume: "approve" | "reject" };

/** What the thread store hears about runs (the run state other instances and restarts see). */
export interface RunHooks {
  /** Before the run begins; a failure refuses the run. */
  starting(threadId: string): Promise<void>;
  /** Once the run has settled, whichever way; the run's `done` waits for it. */
  settled(threadId: string): Promise<void>;
}

/**
 * Which thread has a run under way (one at a time per thread), which runs can be cancelled, and which
 * threads wait for an approval.
 */
export class RunBook {
  private readonly runs = new Map<
    string,
    { threadId: string; owner: string; controller: AbortController; done: Promise<void> }
  >();
  /** threadId → runId (or "" while the run is starting). */
  private readonly busy = new Map<string, string>();
  private readonly awaitingApproval = new Set<string>();
  private closed = false;

  constructor(
    private readonly log: Logger,
    private readonly hooks?: RunHooks,
  ) {}

  isBusy(threadId: string): boolean {
    return this.busy.has(threadId);
  }

  /** The run under way in a thread, once it has an id. */
  runIdOf(threadId: string): string | undefined {
    return this.busy.get(threadId) || undefined;
  }

  /** Known without the checkpointer only for runs of this process. */
  isAwaitingApproval(threadId: string): boolean {
    return this.awaitingApproval.has(threadId);
  }

  /**
   * Starts a run on the agent `ready` gives for `owner` (who alone may cancel it); resolves once it has a run
   * id, the run goes on streaming.
   */
  async launch(
    threadId: string,
    ready: () => Promise<Agent>,
    input: RunInput,
    onEvent: (e: AgentEvent) => void,
    owner = "local",
  ): Promise<RunHandle> {
    if (this.closed) throw runtimeError("unavailable", "agent", "The agent runtime is shutting down.");
    if (this.busy.has(threadId))
      throw runtimeError("conflict", "agent", `Thread ${threadId} already has a run under way.`);
    this.busy.set(threadId, "");
    let agent: Agent;
    try {
      agent = await ready();
      await this.hooks?.starting(threadId);
    } catch (err) {
      this.busy.delete(threadId);
      if (isAppError(err)) throw err;
      throw runtimeError("unavailable", "mcp", (err as Error).message, err);
    }
    const controller = new AbortController();
    return new Promise<RunHandle>((resolve, reject) => {
      let started = false;
      const emit = (e: AgentEvent): void => {
        if (!started && e.type === "run_started") {
          started = true;
          this.busy.set(threadId, e.runId);
          this.runs.set(e.runId, { threadId, owner, controller, done });
          resolve({ runId: e.runId, threadId });
        }
        if (e.type === "final") {
          if (e.stopReason === "awaiting_approval") this.awaitingApproval.add(threadId);
          else this.awaitingApproval.delete(threadId);
        }
        try {
          onEvent(e);
        } catch (err) {
          this.log.warn("agent event listener failed", { err: String(err) });
        }
      };
      const done: Promise<void> = agent
        .run({ threadId, signal: controller.signal, onEvent: emit, ...input })
        .then(
          (result: RunResult) => {
            if (result.stopReason !== "done")
              this.log.info("agent run stopped", { runId: result.runId, stop: result.stopReason });
          },
          (err: unknown) => {
            this.log.warn("agent run failed", { threadId, err: String(err) });
            if (started) return;
            // Reading the thread before the run could start failed on the thread database.
            if (isThreadStoreUnavailable(err)) reject(runtimeError("unavailable", "thread", THREAD_DB_DOWN, err));
            else reject(runtimeError("internal", "agent", (err as Error).message, err));
          },
        )
        .finally(() => {
          const runId = this.busy.get(threadId);
          if (runId) this.runs.delete(runId);
          this.busy.delete(threadId);
          return this.hooks?.settled(threadId);
        });
    });
  }

  /** Aborts a run; false when no such run is active or it is not `owner`'s. */
  cancel(runId: string, owner = "local"): boolean {
    const run = this.runs.get(runId);
    if (!run || run.owner !== owner) return false;
    run.controller.abort();
    return true;
  }

  /** Resolves when every active run has settled. */
  async idle(): Promise<void> {
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  /** Refuses new runs, aborts the active ones and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.runs.values()) r.controller.abort();
    await this.idle();
  }
}
