import { randomUUID } from "node:crypto";
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Command, GraphRecursionError, MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { errorCode, type AgentEvent, type ModelInfo, type TraceMessage } from "@textide/shared";
import { isThreadStoreUnavailable, THREAD_DB_DOWN } from "./checkpoint/thread-store.js";
import { buildGraph, type ApprovalDecision, type ApprovalRequest, type GraphEvent } from "./graph.js";
import type { ModelProvider } from "./models/config.js";
import { OfflinePlanner } from "./planner/offline-planner.js";
import { SYSTEM_PROMPT } from "./prompts.js";
import { RunSlots } from "./run-slots.js";
import { textOf, toTrace } from "./trace.js";

export interface AgentLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AgentOptions {
  model: BaseChatModel;
  modelInfo: ModelInfo;
  /** The model's provider; decides how tool-result images are sent (default "offline": not at all). */
  provider?: ModelProvider;
  tools: StructuredToolInterface[];
  /** Keeps threads (and pending approvals) across runs; in memory when omitted. */
  checkpointer?: BaseCheckpointSaver;
  systemPrompt?: string;
  /** Model calls per run before it stops with the partial trace (default 25). */
  maxSteps?: number;
  toolTimeoutMs?: number;
  /** Tool names that need approval before they run (e.g. writes, code execution). */
  approve?: (name: string, args: Record<string, unknown>) => boolean;
  log?: AgentLogger;
}

export interface RunInput {
  threadId: string;
  /** The user's request; omit when resuming after an approval. */
  text?: string;
  /** Answer to a pending approval of this thread. */
  resume?: ApprovalDecision;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
}

export interface RunResult {
  runId: string;
  threadId: string;
  model: ModelInfo;
  final: string;
  stopReason: "done" | "recursion_limit" | "cancelled" | "awaiting_approval";
  toolCalls: { name: string; args: Record<string, unknown>; isError: boolean }[];
  outputs: string[];
  /** Pending approval, when stopReason is awaiting_approval. */
  approval?: ApprovalRequest;
  trace: TraceMessage[];
}

export interface Agent {
  readonly model: ModelInfo;
  run(input: RunInput): Promise<RunResult>;
  /** A thread's messages as a provider-neutral trace. */
  history(threadId: string): Promise<TraceMessage[]>;
  /** The approval a thread's last run stopped at, read from the checkpointer (so it survives a restart). */
  pendingApproval(threadId: string): Promise<ApprovalRequest | undefined>;
}

function pendingOf(state: { tasks: readonly { interrupts?: readonly { value?: unknown }[] }[] }) {
  return state.tasks
    .flatMap((t) => t.interrupts ?? [])
    .map((i) => i.value as ApprovalRequest | undefined)
    .find((v) => v?.type === "approval");
}

const silent: AgentLogger = { info: () => undefined, warn: () => undefined };

/**
 * Offline planner runs of one agent that go on at once (see createAgent). Under the load bench's bursts of 50
 * on 2 cores, 3–4 gave the lowest median (2 left the web server idle while runs waited on the sandbox, 6–8
 * brought back the lockstep); 4 leaves room for a run whose code is slow.
 */
const OFFLINE_RUNS_AT_ONCE = 4;

/** Creates an agent over a model and tools; every run streams AgentEvents through `onEvent`. */
export function createAgent(opts: AgentOptions): Agent {
  const checkpointer = opts.checkpointer ?? new MemorySaver();
  const systemPrompt = opts.systemPrompt ?? SYSTEM_PROMPT;
  const log = opts.log ?? silent;
  const graph = buildGraph({
    model: opts.model,
    provider: opts.provider ?? "offline",
    tools: opts.tools,
    checkpointer,
    systemPrompt,
    toolTimeoutMs: opts.toolTimeoutMs ?? 60_000,
    ...(opts.approve ? { needsApproval: opts.approve } : {}),
  });
  const maxSteps = opts.maxSteps ?? 25;
  // The offline planner's run is a few quick steps, so its thread is saved once, when the run ends (done,
  // failed, cancelled or paused for an approval), instead of after every step: saving every step was about
  // a tenth of the web server's work per chart request under load. A window that opens the thread during
  // such a run sees the thread as it was before the run, then the run's later events. A model's run can
  // take minutes, and a window opened meanwhile should see it so far: saved after every step.
  const durability: "exit" | "async" = opts.model instanceof OfflinePlanner ? "exit" : "async";
  // The offline planner's runs are work for this process and the sandbox, not waits on a model's API: when
  // many arrive at once, all of them advancing together makes every one finish near the end of the burst.
  // A few at a time, the others waiting in order, finish the first ones early and the last ones no later.
  // A model's runs mostly wait on its API and are not limited.
  const slots = opts.model instanceof OfflinePlanner ? new RunSlots(OFFLINE_RUNS_AT_ONCE) : undefined;

  async function messagesOf(threadId: string): Promise<BaseMessage[]> {
    const state = await graph.getState({ configurable: { thread_id: threadId } });
    return (state.values as { messages?: BaseMessage[] }).messages ?? [];
  }

  return {
    model: opts.modelInfo,
    async history(threadId) {
      return toTrace(await messagesOf(threadId), systemPrompt);
    },

    async pendingApproval(threadId) {
      return pendingOf(await graph.getState({ configurable: { thread_id: threadId } }));
    },

    async run(input) {
      const runId = randomUUID();
      const { threadId } = input;
      const emit = (e: AgentEvent) => input.onEvent?.(e);
      const ids = { runId, threadId };
      const before = (await messagesOf(threadId)).length;
      emit({
        type: "run_started",
        ...ids,
        model: opts.modelInfo,
        input: input.text ?? `(${input.resume ?? "resume"})`,
      });
      log.info({ runId, threadId, model: opts.modelInfo.id }, "agent run started");

      const config = {
        configurable: { thread_id: threadId, run_id: runId },
        recursionLimit: maxSteps * 2 + 1,
        streamMode: ["messages", "custom"] as ("messages" | "custom")[],
        durability,
        ...(input.signal ? { signal: input.signal } : {}),
      };
      let stopReason: RunResult["stopReason"] = "done";
      let streamed = "";
      const outputs: string[] = [];
      let release: (() => void) | undefined;
      try {
        release = await slots?.acquire(input.signal);
        const stream =
          input.resume !== undefined
            ? await graph.stream(new Command({ resume: input.resume }), config)
            : await graph.stream({ messages: [new HumanMessage(input.text ?? "")] }, config);
        for await (const [mode, chunk] of stream) {
          if (mode === "messages") {
            const [message, meta] = chunk as [BaseMessage, { langgraph_node?: string }];
            if (meta.langgraph_node === "call_model" && message instanceof AIMessageChunk) {
              const text = textOf(message);
              if (text) {
                streamed += text;
                emit({ type: "token", ...ids, text });
              }
            }
          } else {
            const e = chunk as GraphEvent;
            if (e.type !== "model_call") {
              // Tool events go out as the graph wrote them, with the run's ids.
              emit({ ...e, ...ids });
              if (e.type === "tool_end") {
                for (const o of e.outputs) if (!outputs.includes(o)) outputs.push(o);
                log.info(
                  { runId, tool: e.name, correlationId: `${runId}:${e.callId}`, ms: e.durationMs, isError: e.isError },
                  "agent tool call",
                );
              }
            } else
              log.info(
                {
                  runId,
                  correlationId: `${runId}:model`,
                  model: opts.modelInfo.id,
                  ms: e.ms,
                  toolCalls: e.toolCalls,
                  inputTokens: e.inputTokens,
                  outputTokens: e.outputTokens,
                },
                "model call",
              );
          }
        }
      } catch (err) {
        if (err instanceof GraphRecursionError) stopReason = "recursion_limit";
        else if (input.signal?.aborted) stopReason = "cancelled";
        else {
          const message = (err as Error).message;
          // The checkpointer lost its database mid-run: say so in words, not as the driver's message.
          if (isThreadStoreUnavailable(err))
            emit({ type: "error", ...ids, code: errorCode("unavailable", "thread"), message: THREAD_DB_DOWN });
          else emit({ type: "error", ...ids, code: errorCode("internal", "agent"), message });
          log.warn({ runId, err: message }, "agent run failed");
          throw err;
        }
      } finally {
        release?.();
      }

      const state = await graph.getState({ configurable: { thread_id: threadId } });
      const all = (state.values as { messages?: BaseMessage[] }).messages ?? [];
      const fresh = all.slice(before);
      const pending = pendingOf(state);
      if (pending) {
        stopReason = "awaiting_approval";
        emit({ type: "approval_required", ...ids, callId: pending.callId, name: pending.name, args: pending.args });
      }
      const toolCalls = callsOf(fresh);
      const final = finalText(fresh, stopReason, streamed, maxSteps, pending);
      emit({ type: "final", ...ids, text: final, outputs, stopReason });
      log.info({ runId, stopReason, toolCalls: toolCalls.length }, "agent run finished");
      return {
        ...ids,
        model: opts.modelInfo,
        final,
        stopReason,
        toolCalls,
        outputs,
        ...(pending ? { approval: pending } : {}),
        trace: toTrace(all, systemPrompt),
      };
    },
  };
}

function callsOf(messages: BaseMessage[]): RunResult["toolCalls"] {
  const status = new Map<string, boolean>();
  for (const m of messages)
    if (m.getType() === "tool")
      status.set(
        (m as unknown as { tool_call_id: string }).tool_call_id,
        (m as unknown as { status?: string }).status === "error",
      );
  return messages
    .filter((m): m is AIMessage => m.getType() === "ai")
    .flatMap((m) => m.tool_calls ?? [])
    .map((c) => ({ name: c.name, args: c.args, isError: status.get(c.id ?? "") ?? false }));
}

function finalText(
  fresh: BaseMessage[],
  stop: RunResult["stopReason"],
  streamed: string,
  maxSteps: number,
  pending?: ApprovalRequest,
): string {
  const lastAi = [...fresh].reverse().find((m) => m.getType() === "ai");
  const answer = lastAi ? textOf(lastAi) : streamed;
  if (stop === "recursion_limit") {
    return `Stopped after ${maxSteps} steps without a final answer (the step limit). ${answer ? `Last message: ${answer}` : "The partial trace shows what was done."}`;
  }
  if (stop === "cancelled") return answer ? `${answer}\n\n(cancelled)` : "Cancelled.";
  if (stop === "awaiting_approval" && pending) return `Waiting for approval to run ${pending.name}.`;
  return answer;
}
