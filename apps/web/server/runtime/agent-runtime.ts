import { randomUUID } from "node:crypto";
import path from "node:path";
import {
  createAgent,
  createChatModel,
  describeModel,
  McpHub,
  McpToolSet,
  NodeSqliteSaver,
  OfflinePlanner,
  resolveModelConfig,
  type Agent,
  type AgentOptions,
  type ModelProvider,
  type RunResult,
  type ServerSpec,
  type ServerStatus,
} from "@textide/agent";
import type { AgentEvent, ModelInfo, TraceMessage } from "@textide/shared";
import { silentLogger, type Logger } from "../log.js";

/** The MCP server name the bundled server is registered under (tool names are not prefixed by it). */
export const BUNDLED_SERVER = "textide";

type ChatModel = AgentOptions["model"];

export interface RuntimeModel {
  chat: ChatModel;
  info: ModelInfo;
  provider?: ModelProvider;
}

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
  /** Extra environment of the bundled server (exec settings); it inherits only PATH, HOME and the like. */
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

export interface ThreadListItem {
  threadId: string;
  title: string;
  updatedAt: string;
  /** Set while a run of this thread is under way. */
  runId?: string;
}

export interface RunHandle {
  runId: string;
  threadId: string;
}

/** An error the socket/REST layers pass on as `{code, message}` (code is `${type}:${surface}`). */
export class RuntimeError extends Error {
  override readonly name = "RuntimeError";
  constructor(
    readonly code: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

export function isRuntimeError(e: unknown): e is RuntimeError {
  return e instanceof Error && e.name === "RuntimeError" && typeof (e as RuntimeError).code === "string";
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
  threads(): Promise<ThreadListItem[]>;
  history(threadId: string): Promise<TraceMessage[]>;
  /** The MCP servers' connection state (empty before the first run starts them). */
  status(): ServerStatus[];
  /** Resolves when every active run has settled (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const TITLE_MAX = 80;

/** Owns the bundled MCP server, the tool set, the model, the thread store and the agent of the web server. */
export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const log = deps.log ?? silentLogger;
  const agentLog = {
    info: () => undefined,
    warn: (obj: object, msg: string) => log.warn(msg, obj as Record<string, unknown>),
  };
  const toolTimeoutMs = deps.toolTimeoutMs ?? 60_000;

  let chat: ChatModel;
  let info: ModelInfo;
  let provider: ModelProvider | undefined;
  if (deps.model) {
    ({ chat, info, provider } = deps.model);
  } else {
    const cfg = resolveModelConfig(deps.modelEnv ?? {});
    chat = createChatModel(cfg, { offline: () => new OfflinePlanner() });
    info = describeModel(cfg);
    provider = cfg.provider;
  }

  const checkpointer = NodeSqliteSaver.open(path.join(deps.dataDir, "threads.sqlite"));
  const approveTools = deps.approveTools ?? [];
  const baseOptions = {
    model: chat,
    modelInfo: info,
    ...(provider ? { provider } : {}),
    checkpointer,
    toolTimeoutMs,
    ...(deps.maxSteps !== undefined ? { maxSteps: deps.maxSteps } : {}),
    ...(approveTools.length ? { approve: (name: string) => approveTools.includes(name) } : {}),
    log: agentLog,
  };
  /** Reads threads without the MCP server: history needs only the checkpointer. */
  const reader = createAgent({ ...baseOptions, tools: [] });

  const spec = (): ServerSpec => {
    if (deps.serverSpec) return deps.serverSpec;
    if (!deps.mcpServerBin) throw new RuntimeError("unavailable:mcp", "No bundled MCP server is configured.");
    const ideUrl = typeof deps.ideUrl === "function" ? deps.ideUrl() : deps.ideUrl;
    return {
      command: process.execPath,
      args: [
        deps.mcpServerBin,
        "--root",
        deps.projectRoot,
        "--assets",
        deps.generatedAssets,
        "--audit-log",
        path.join(deps.dataDir, "exec-audit.jsonl"),
        ...(ideUrl ? ["--ide-url", ideUrl] : []),
      ],
      env: {
        ...deps.mcpEnv,
        LOG_LEVEL: deps.mcpLogLevel ?? "warn",
        ...(deps.ideToken ? { TEXTIDE_IDE_TOKEN: deps.ideToken } : {}),
      },
    };
  };

  // Created on first use, so that `ideUrl` can name the port the server ended up listening on.
  let hub: McpHub | undefined;
  let toolSet: McpToolSet | undefined;
  let agent: Agent | undefined;
  let preparing: Promise<Agent> | undefined;

  async function prepare(): Promise<Agent> {
    if (!hub || !toolSet) {
      const onStderr = deps.onMcpStderr;
      hub = new McpHub({ [BUNDLED_SERVER]: spec() }, agentLog, onStderr ? { onStderr: (_s, d) => onStderr(d) } : {});
      toolSet = new McpToolSet(hub, { log: agentLog, timeoutMs: toolTimeoutMs });
    }
    const connected = hub.status().every((s) => s.connected);
    if (agent && connected) return agent;
    // First start, or the bundled server died: (re)connect, which respawns it, and rediscover its tools.
    const status = await hub.connectAll();
    const down = status.find((s) => !s.connected);
    if (down) throw new RuntimeError("unavailable:mcp", `The MCP server "${down.name}" is unavailable: ${down.error}`);
    const tools = agent ? await toolSet.refresh() : await toolSet.tools();
    if (tools.length === 0) throw new RuntimeError("unavailable:mcp", "The bundled MCP server offers no tools.");
    if (agent) log.warn("bundled MCP server restarted", {});
    agent = createAgent({ ...baseOptions, tools });
    return agent;
  }

  function ready(): Promise<Agent> {
    preparing ??= prepare().finally(() => (preparing = undefined));
    return preparing;
  }

  const runs = new Map<string, { threadId: string; controller: AbortController; done: Promise<void> }>();
  /** threadId → runId (or "" while the run is starting). */
  const busy = new Map<string, string>();
  const awaitingApproval = new Set<string>();
  let closed = false;

  async function launch(
    threadId: string,
    input: { text: string } | { resume: "approve" | "reject" },
    onEvent: (e: AgentEvent) => void,
  ): Promise<RunHandle> {
    if (closed) throw new RuntimeError("unavailable:agent", "The agent runtime is shutting down.");
    if (busy.has(threadId)) throw new RuntimeError("conflict:agent", `Thread ${threadId} already has a run under way.`);
    busy.set(threadId, "");
    let current: Agent;
    try {
      current = await ready();
    } catch (err) {
      busy.delete(threadId);
      if (isRuntimeError(err)) throw err;
      throw new RuntimeError("unavailable:mcp", (err as Error).message, { cause: err });
    }
    const controller = new AbortController();
    return new Promise<RunHandle>((resolve, reject) => {
      let started = false;
      const emit = (e: AgentEvent): void => {
        if (!started && e.type === "run_started") {
          started = true;
          busy.set(threadId, e.runId);
          runs.set(e.runId, { threadId, controller, done });
          resolve({ runId: e.runId, threadId });
        }
        if (e.type === "final") {
          if (e.stopReason === "awaiting_approval") awaitingApproval.add(threadId);
          else awaitingApproval.delete(threadId);
        }
        try {
          onEvent(e);
        } catch (err) {
          log.warn("agent event listener failed", { err: String(err) });
        }
      };
      const done: Promise<void> = current
        .run({ threadId, signal: controller.signal, onEvent: emit, ...input })
        .then(
          (result: RunResult) => {
            if (result.stopReason !== "done")
              log.info("agent run stopped", { runId: result.runId, stop: result.stopReason });
          },
          (err: unknown) => {
            log.warn("agent run failed", { threadId, err: String(err) });
            if (!started) reject(new RuntimeError("internal:agent", (err as Error).message, { cause: err }));
          },
        )
        .finally(() => {
          const runId = busy.get(threadId);
          if (runId) runs.delete(runId);
          busy.delete(threadId);
        });
    });
  }

  return {
    model: info,
    approvalsEnabled: approveTools.length > 0,

    async start(input, onEvent) {
      // A new message on a thread paused for approval would replace the paused request without a word.
      const threadId = input.threadId;
      if (threadId !== undefined && !busy.has(threadId)) {
        if (awaitingApproval.has(threadId) || (await reader.pendingApproval(threadId))) {
          throw new RuntimeError(
            "conflict:approval",
            "This conversation is waiting for your approval: approve or deny the pending step before sending another message.",
          );
        }
      }
      return launch(threadId ?? randomUUID(), { text: input.text }, onEvent);
    },

    cancel(runId) {
      const run = runs.get(runId);
      if (!run) return false;
      run.controller.abort();
      return true;
    },

    async approve(threadId, decision, onEvent) {
      if (approveTools.length === 0) {
        throw new RuntimeError("bad_request:agent", "Approvals are not configured (set TEXTIDE_APPROVE).");
      }
      // After a restart the pending approval is only in the checkpointer.
      if (!awaitingApproval.has(threadId) && !(await reader.pendingApproval(threadId))) {
        throw new RuntimeError("not_found:approval", `Thread ${threadId} has no pending approval.`);
      }
      return launch(threadId, { resume: decision }, onEvent);
    },

    async threads() {
      const list = checkpointer.listThreads();
      return Promise.all(
        list.map(async (t) => {
          const trace = await reader.history(t.threadId);
          const first = trace.find((m) => m.role === "user")?.content.trim() ?? "";
          const title = first.length > TITLE_MAX ? `${first.slice(0, TITLE_MAX - 1)}…` : first || "(empty thread)";
          const runId = busy.get(t.threadId);
          return { threadId: t.threadId, title, updatedAt: t.updatedAt, ...(runId ? { runId } : {}) };
        }),
      );
    },

    history(threadId) {
      return reader.history(threadId);
    },

    status() {
      return hub?.status() ?? [];
    },

    async idle() {
      await Promise.all([...runs.values()].map((r) => r.done));
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const r of runs.values()) r.controller.abort();
      await Promise.all([...runs.values()].map((r) => r.done));
      await preparing?.catch(() => undefined);
      await hub?.close();
      checkpointer.close();
    },
  };
}
