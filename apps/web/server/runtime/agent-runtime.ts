import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import path from "node:path";
import { createAgent, threadTitleOf, type AgentLogger, type ServerSpec, type ServerStatus } from "@textide/agent";
import type { AgentEvent, ModelInfo, ThreadSummary, TraceMessage } from "@textide/shared";
import { runtimeError } from "../errors.js";
import { silentLogger, type Logger } from "../log.js";
import { mcpServerCommand } from "../mcp/server-command.js";
import { createBundledAgent } from "./bundled-agent.js";
import { chooseModel, type RuntimeModel } from "./model.js";
import { RunBook, type RunHandle } from "./runs.js";
import { threadTitle } from "./thread-title.js";
import { openThreadStore, storeGuard, type RunState, type ThreadStore } from "./thread-store.js";

export { BUNDLED_SERVER } from "./bundled-agent.js";
export type { RuntimeModel } from "./model.js";
export type { RunHandle } from "./runs.js";

export interface AgentRuntimeDeps {
  projectRoot: string;
  generatedAssets: string;
  /** `threads.sqlite` (without `databaseUrl`) and `exec-audit.jsonl` go here. */
  dataDir: string;
  /** `DATABASE_URL`: threads, checkpoints and their owners live in this Postgres database instead of SQLite. */
  databaseUrl?: string | undefined;
  /**
   * This instance's id in the thread store's run state (default the host name). Stable across restarts, so a
   * restarted instance marks the runs it lost as interrupted.
   */
  instanceId?: string;
  /** The bundled MCP server's entry point (`apps/mcp-fs-server/dist/index.js`). */
  mcpServerBin?: string;
  /**
   * This web server's URL, for `system_open_file`. A function because the port is only known once
   * the server listens; it is read when the MCP server is (re)spawned.
   */
  ideUrl?: string | (() => string | undefined);
  ideToken?: string | undefined;
  /** LOG_LEVEL of the bundled server (default "warn"). */
  mcpLogLevel?: string;
  /** Extra environment of the bundled server (from `pickMcpEnv`); it inherits only PATH, HOME and the like. */
  mcpEnv?: Readonly<Record<string, string>>;
  /** Receives the bundled server's stderr (its logs, one JSON line each), chunk by chunk. */
  onMcpStderr?: (chunk: Buffer) => void;
  toolTimeoutMs?: number;
  /** Model settings (TEXTIDE_MODEL, ANTHROPIC_API_KEY, …) for `resolveModelConfig`; offline planner when empty. */
  modelEnv?: Readonly<Record<string, string | undefined>>;
  /** Replaces the model chosen from `modelEnv` (tests). */
  model?: RuntimeModel;
  /** Replaces the spawned bundled server (tests). */
  serverSpec?: ServerSpec;
  /** Tools that stop the run for an `approve(threadId, …)` before they run. */
  approveTools?: readonly string[];
  maxSteps?: number;
  log?: Logger;
}

/** The user of loopback single-user mode, who owns every thread there. */
export const LOCAL_USER = "local";

/**
 * `user` is the signed-in user ("local" in loopback single-user mode). A thread belongs to the user of its
 * first run; for anyone else it does not exist (not listed, `not_found` when read, continued or approved, and
 * its runs cannot be cancelled).
 */
export interface AgentRuntime {
  readonly model: ModelInfo;
  readonly approvalsEnabled: boolean;
  /** Starts a run (one at a time per thread); resolves once it has a run id, the run goes on streaming. */
  start(
    input: { threadId?: string | undefined; text: string },
    onEvent: (e: AgentEvent) => void,
    user?: string,
  ): Promise<RunHandle>;
  /** Aborts a run of this instance; false when no such run is active here or it is not `user`'s. */
  cancel(runId: string, user?: string): boolean;
  /** Answers a thread's pending approval by resuming it as a new run. */
  approve(
    threadId: string,
    decision: "approve" | "reject",
    onEvent: (e: AgentEvent) => void,
    user?: string,
  ): Promise<RunHandle>;
  /** `user`'s threads, newest first (one store query; titles are stored when a thread is created). */
  threads(user?: string): Promise<ThreadSummary[]>;
  /** The thread's messages; empty when there is no such thread. */
  history(threadId: string, user?: string): Promise<TraceMessage[]>;
  /**
   * Marks the runs of a stopped instance interrupted (their threads can be continued with a new message);
   * the thread ids. This instance does it for its own id when it starts.
   */
  markInterrupted(instanceId: string): Promise<string[]>;
  /** The MCP servers' connection state (empty before the first run starts them). */
  status(): ServerStatus[];
  /** Resolves when every active run has settled (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The web server's agent: the model, the thread store, the bundled MCP server and the runs over them. */
export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const log = deps.log ?? silentLogger;
  const agentLog: AgentLogger = {
    info: () => undefined,
    warn: (obj: object, msg: string) => log.warn(msg, obj as Record<string, unknown>),
  };
  const toolTimeoutMs = deps.toolTimeoutMs ?? 60_000;
  const { chat, info, provider } = deps.model ?? chooseModel(deps.modelEnv ?? {});
  const instanceId = deps.instanceId ?? hostname();
  const { run: guarded, noteDown } = storeGuard(log, deps.databaseUrl ? "postgres" : "sqlite");
  const store: ThreadStore = openThreadStore({
    dataDir: deps.dataDir,
    databaseUrl: deps.databaseUrl,
    onPoolError: noteDown,
  });
  const { checkpointer } = store;
  const approveTools = deps.approveTools ?? [];
  const options = {
    model: chat,
    modelInfo: info,
    ...(provider ? { provider } : {}),
    checkpointer,
    toolTimeoutMs,
    ...(deps.maxSteps !== undefined ? { maxSteps: deps.maxSteps } : {}),
    ...(approveTools.length ? { approve: (name: string) => approveTools.includes(name) } : {}),
  };
  /** Reads threads without the MCP server: history needs only the checkpointer. */
  const reader = createAgent({ ...options, log: agentLog, tools: [] });

  const spec = (): ServerSpec => {
    if (deps.serverSpec) return deps.serverSpec;
    if (!deps.mcpServerBin) throw runtimeError("unavailable", "mcp", "No bundled MCP server is configured.");
    return mcpServerCommand({
      bin: deps.mcpServerBin,
      projectRoot: deps.projectRoot,
      generatedAssets: deps.generatedAssets,
      auditLog: path.join(deps.dataDir, "exec-audit.jsonl"),
      ideUrl: typeof deps.ideUrl === "function" ? deps.ideUrl() : deps.ideUrl,
      ideToken: deps.ideToken,
      env: deps.mcpEnv ?? {},
      logLevel: deps.mcpLogLevel ?? "warn",
    });
  };
  // Started on first use, so that `ideUrl` can name the port the server ended up listening on.
  const bundled = createBundledAgent({ spec, options, agentLog, toolTimeoutMs, onStderr: deps.onMcpStderr, log });
  /** Run state writes per thread, in order, so a run's late "idle" never lands after the next run's "running". */
  const marks = new Map<string, Promise<void>>();
  const mark = (threadId: string, state: RunState): Promise<void> => {
    const next = (marks.get(threadId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => guarded(() => store.markRun(threadId, state, instanceId)));
    marks.set(threadId, next);
    void next.then(
      () => marks.get(threadId) === next && marks.delete(threadId),
      () => marks.get(threadId) === next && marks.delete(threadId),
    );
    return next;
  };
  /** Threads whose run ended while the database was away: their "idle" is written once it answers again. */
  const unsettled = new Set<string>();
  const runs = new RunBook(log, {
    starting: (threadId) => mark(threadId, "running"),
    settled: (threadId) =>
      mark(threadId, "idle").catch((err: unknown) => {
        unsettled.add(threadId);
        noteDown(err);
      }),
  });
  const ready = () => bundled.ready();

  /** The store's tables, and this instance's runs lost to a crash marked interrupted; retried until it works. */
  let opened: Promise<void> | undefined;
  const storeReady = async (): Promise<void> => {
    opened ??= guarded(async () => {
      const lost = await store.markInterrupted(instanceId);
      if (lost.length) log.warn("runs cut off by the last stop of this instance are marked interrupted", { lost });
    }).catch((err: unknown) => {
      opened = undefined;
      throw err;
    });
    await opened;
    for (const threadId of unsettled) {
      unsettled.delete(threadId);
      // A run under way again on this thread writes its own state.
      if (!runs.isBusy(threadId)) void mark(threadId, "idle").catch(() => unsettled.add(threadId));
    }
  };
  /** The thread's owner (undefined: no such thread), after the store is ready. */
  const ownerOf = async (threadId: string): Promise<string | undefined> => {
    await storeReady();
    return guarded(() => store.ownerOf(threadId));
  };
  const noSuchThread = (threadId: string) => runtimeError("not_found", "thread", `No thread ${threadId}.`);
  let closing: Promise<void> | undefined;

  return {
    model: info,
    approvalsEnabled: approveTools.length > 0,

    async start(input, onEvent, user = LOCAL_USER) {
      await storeReady();
      const threadId = input.threadId ?? randomUUID();
      // The first run's user owns the thread; the claim is atomic, so of two racing first runs one wins.
      if (!(await guarded(() => store.claim(threadId, user, threadTitleOf(input.text))))) throw noSuchThread(threadId);
      // A new message on a thread paused for approval would replace the paused request without a word.
      if (input.threadId !== undefined && !runs.isBusy(threadId)) {
        if (runs.isAwaitingApproval(threadId) || (await guarded(() => reader.pendingApproval(threadId)))) {
          throw runtimeError(
            "conflict",
            "approval",
            "This conversation is waiting for your approval: approve or deny the pending step before sending another message.",
          );
        }
      }
      return runs.launch(threadId, ready, { text: input.text }, onEvent, user);
    },

    cancel: (runId, user = LOCAL_USER) => runs.cancel(runId, user),

    async approve(threadId, decision, onEvent, user = LOCAL_USER) {
      if (approveTools.length === 0) {
        throw runtimeError("bad_request", "agent", "Approvals are not configured (set TEXTIDE_APPROVE).");
      }
      const owner = await ownerOf(threadId);
      if (owner !== undefined && owner !== user) throw noSuchThread(threadId);
      // After a restart the pending approval is only in the checkpointer.
      if (
        owner === undefined ||
        (!runs.isAwaitingApproval(threadId) && !(await guarded(() => reader.pendingApproval(threadId))))
      ) {
        throw runtimeError("not_found", "approval", `Thread ${threadId} has no pending approval.`);
      }
      return runs.launch(threadId, ready, { resume: decision }, onEvent, user);
    },

    async threads(user = LOCAL_USER) {
      await storeReady();
      const stored = await guarded(() => store.list(user));
      return Promise.all(
        stored.map(async (t): Promise<ThreadSummary> => {
          const runId = runs.runIdOf(t.threadId);
          let title = t.title;
          if (title === undefined) {
            // Threads from before the metadata table: read the history once and keep the title.
            const found = threadTitle(await guarded(() => reader.history(t.threadId)));
            await guarded(() => store.setTitle(t.threadId, found));
            title = found;
          }
          const state = runId ? "running" : t.state;
          return { threadId: t.threadId, title, updatedAt: t.updatedAt, state, ...(runId ? { runId } : {}) };
        }),
      );
    },

    async history(threadId, user = LOCAL_USER) {
      const owner = await ownerOf(threadId);
      if (owner === undefined) return [];
      if (owner !== user) throw noSuchThread(threadId);
      return guarded(() => reader.history(threadId));
    },

    async markInterrupted(id) {
      await storeReady();
      return guarded(() => store.markInterrupted(id));
    },

    status: () => bundled.status(),
    idle: () => runs.idle(),

    close() {
      closing ??= (async () => {
        await runs.close();
        await bundled.close();
        await Promise.allSettled(marks.values());
        await store.close();
      })();
      return closing;
    },
  };
}
