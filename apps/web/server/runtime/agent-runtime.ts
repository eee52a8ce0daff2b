import { randomUUID } from "node:crypto";
import path from "node:path";
import { createAgent, NodeSqliteSaver, type AgentLogger, type ServerSpec, type ServerStatus } from "@textide/agent";
import type { AgentEvent, ModelInfo, ThreadSummary, TraceMessage } from "@textide/shared";
import { runtimeError } from "../errors.js";
import { silentLogger, type Logger } from "../log.js";
import { mcpServerCommand } from "../mcp/server-command.js";
import { createBundledAgent } from "./bundled-agent.js";
import { chooseModel, type RuntimeModel } from "./model.js";
import { RunBook, type RunHandle } from "./runs.js";
import { threadTitle } from "./thread-title.js";

export { BUNDLED_SERVER } from "./bundled-agent.js";
export type { RuntimeModel } from "./model.js";
export type { RunHandle } from "./runs.js";

export interface AgentRuntimeDeps {
  projectRoot: string;
  generatedAssets: string;
  /** `threads.sqlite` and `exec-audit.jsonl` go here. */
  dataDir: string;
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

export interface AgentRuntime {
  readonly model: ModelInfo;
  readonly approvalsEnabled: boolean;
  /** Starts a run (one at a time per thread); resolves once it has a run id, the run goes on streaming. */
  start(input: { threadId?: string | undefined; text: string }, onEvent: (e: AgentEvent) => void): Promise<RunHandle>;
  /** Aborts a run; false when no such run is active. */
  cancel(runId: string): boolean;
  /** Answers a thread's pending approval by resuming it as a new run. */
  approve(threadId: string, decision: "approve" | "reject", onEvent: (e: AgentEvent) => void): Promise<RunHandle>;
  threads(): Promise<ThreadSummary[]>;
  history(threadId: string): Promise<TraceMessage[]>;
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
  const checkpointer = NodeSqliteSaver.open(path.join(deps.dataDir, "threads.sqlite"));
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
  const runs = new RunBook(log);
  const ready = () => bundled.ready();
  let closing: Promise<void> | undefined;

  return {
    model: info,
    approvalsEnabled: approveTools.length > 0,

    async start(input, onEvent) {
      // A new message on a thread paused for approval would replace the paused request without a word.
      const threadId = input.threadId;
      if (threadId !== undefined && !runs.isBusy(threadId)) {
        if (runs.isAwaitingApproval(threadId) || (await reader.pendingApproval(threadId))) {
          throw runtimeError(
            "conflict",
            "approval",
            "This conversation is waiting for your approval: approve or deny the pending step before sending another message.",
          );
        }
      }
      return runs.launch(threadId ?? randomUUID(), ready, { text: input.text }, onEvent);
    },

    cancel: (runId) => runs.cancel(runId),

    async approve(threadId, decision, onEvent) {
      if (approveTools.length === 0) {
        throw runtimeError("bad_request", "agent", "Approvals are not configured (set TEXTIDE_APPROVE).");
      }
      // After a restart the pending approval is only in the checkpointer.
      if (!runs.isAwaitingApproval(threadId) && !(await reader.pendingApproval(threadId))) {
        throw runtimeError("not_found", "approval", `Thread ${threadId} has no pending approval.`);
      }
      return runs.launch(threadId, ready, { resume: decision }, onEvent);
    },

    async threads() {
      return Promise.all(
        checkpointer.listThreads().map(async (t) => {
          const runId = runs.runIdOf(t.threadId);
          const title = threadTitle(await reader.history(t.threadId));
          return { threadId: t.threadId, title, updatedAt: t.updatedAt, ...(runId ? { runId } : {}) };
        }),
      );
    },

    history: (threadId) => reader.history(threadId),
    status: () => bundled.status(),
    idle: () => runs.idle(),

    close() {
      closing ??= (async () => {
        await runs.close();
        await bundled.close();
        checkpointer.close();
      })();
      return closing;
    },
  };
}
