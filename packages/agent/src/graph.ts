import { AIMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  Annotation,
  END,
  interrupt,
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
  type BaseCheckpointSaver,
} from "@langchain/langgraph";
import type { ToolEvent } from "@textide/shared";
import type { ToolArtifact, ToolProgressSink } from "./mcp/tools.js";
import { isTransientModelError } from "./errors.js";
import type { ModelProvider } from "./models/config.js";
import { answerCutOffCalls } from "./models/cut-off-calls.js";
import { adaptToolResultImages } from "./models/tool-result-images.js";
import { textOf } from "./trace.js";

export const AgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** Workspace paths of files the run produced (charts, written files). */
  outputs: Annotation<string[]>({ reducer: (a, b) => [...new Set([...a, ...b])], default: () => [] }),
});
export type AgentStateType = typeof AgentState.State;

/** A model call's cost, for the log only (not an event of the run). */
export interface ModelCallMetric {
  type: "model_call";
  ms: number;
  toolCalls: number;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

/** What the nodes write to the custom stream: tool events (shared, passed on as they are) and metrics. */
export type GraphEvent = ToolEvent | ModelCallMetric;

export interface ApprovalRequest {
  type: "approval";
  callId: string;
  name: string;
  args: Record<string, unknown>;
}
export type ApprovalDecision = "approve" | "reject";

export interface GraphOptions {
  model: BaseChatModel;
  /** Decides how images from tool results reach the model (see models/tool-result-images.ts). */
  provider: ModelProvider;
  tools: StructuredToolInterface[];
  checkpointer: BaseCheckpointSaver;
  systemPrompt: string;
  /** Per tool call. */
  toolTimeoutMs: number;
  /** Tools that need a human's approval before they run. */
  needsApproval?: (name: string, args: Record<string, unknown>) => boolean;
}

/** START → call_model ⇄ tools → END, with streaming, approvals, per-tool timeouts and model retries. */
export function buildGraph(opts: GraphOptions) {
  if (!opts.model.bindTools) throw new Error("The chat model does not support tool calling.");
  const model = opts.model.bindTools(opts.tools);
  const byName = new Map(opts.tools.map((t) => [t.name, t]));

  const callModel = async (state: AgentStateType, config: LangGraphRunnableConfig) => {
    const started = performance.now();
    const history = adaptToolResultImages(answerCutOffCalls(state.messages).map(withImages), opts.provider);
    const response = (await model.invoke([new SystemMessage(opts.systemPrompt), ...history], config)) as AIMessage;
    config.writer?.({
      type: "model_call",
      ms: Math.round(performance.now() - started),
      toolCalls: response.tool_calls?.length ?? 0,
      inputTokens: response.usage_metadata?.input_tokens,
      outputTokens: response.usage_metadata?.output_tokens,
    } satisfies GraphEvent);
    return { messages: [response] };
  };

  const runTools = async (state: AgentStateType, config: LangGraphRunnableConfig) => {
    const last = state.messages.at(-1) as AIMessage;
    const calls = last.tool_calls ?? [];
    // Approvals first (an interrupt re-runs this node on resume, so nothing may have run yet).
    const rejected = new Set<string>();
    for (const call of calls) {
      if (opts.needsApproval?.(call.name, call.args)) {
        const decision = interrupt<ApprovalRequest, ApprovalDecision>({
          type: "approval",
          callId: call.id ?? "",
          name: call.name,
          args: call.args,
        });
        if (decision !== "approve") rejected.add(call.id ?? "");
      }
    }
    const results = await Promise.all(
      calls.map(async (call) => {
        const callId = call.id ?? "";
        if (rejected.has(callId)) {
          return {
            message: new ToolMessage({
              tool_call_id: callId,
              name: call.name,
              content: "The user rejected this tool call. Do not retry it; ask or do something else.",
              status: "error",
            }),
            outputs: [],
          };
        }
        config.writer?.({ type: "tool_start", callId, name: call.name, args: call.args } satisfies GraphEvent);
        const started = performance.now();
        const { message, outputs } = await invokeTool(byName.get(call.name), call, config, opts.toolTimeoutMs);
        config.writer?.({
          type: "tool_end",
          callId,
          name: call.name,
          isError: message.status === "error",
          summary: summarize(textOf(message)),
          durationMs: Math.round(performance.now() - started),
          outputs,
        } satisfies GraphEvent);
        return { message, outputs };
      }),
    );
    return { messages: results.map((r) => r.message), outputs: results.flatMap((r) => r.outputs) };
  };

  return new StateGraph(AgentState)
    .addNode("call_model", callModel, {
      retryPolicy: { maxAttempts: 3, initialInterval: 500, backoffFactor: 2, retryOn: isTransientModelError },
    })
    .addNode("tools", runTools)
    .addEdge(START, "call_model")
    .addConditionalEdges(
      "call_model",
      (s: AgentStateType) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END),
      ["tools", END],
    )
    .addEdge("tools", "call_model")
    .compile({ checkpointer: opts.checkpointer });
}

type ToolCall = NonNullable<AIMessage["tool_calls"]>[number];

/** A tool message whose artifact holds images (e.g. a chart the model made) gets them as content blocks. */
function withImages(message: BaseMessage): BaseMessage {
  if (message.getType() !== "tool") return message;
  const tool = message as ToolMessage;
  const images = (tool.artifact as ToolArtifact | undefined)?.images ?? [];
  if (images.length === 0) return message;
  return new ToolMessage({
    tool_call_id: tool.tool_call_id,
    name: tool.name,
    status: tool.status,
    artifact: tool.artifact as unknown,
    content: [
      { type: "text", text: textOf(tool) },
      ...images.map((i) => ({ type: "image" as const, mimeType: i.mimeType, data: i.data })),
    ],
  });
}

async function invokeTool(
  tool: StructuredToolInterface | undefined,
  call: ToolCall,
  config: LangGraphRunnableConfig,
  timeoutMs: number,
): Promise<{ message: ToolMessage; outputs: string[] }> {
  const callId = call.id ?? "";
  const fail = (content: string) => ({
    message: new ToolMessage({ tool_call_id: callId, name: call.name, content, status: "error" as const }),
    outputs: [],
  });
  if (!tool) return fail(`There is no tool named ${call.name}. Use one of the tools you were given.`);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = config.signal ? AbortSignal.any([config.signal, timeout]) : timeout;
  try {
    const message = (await tool.invoke(
      { ...call, type: "tool_call" },
      {
        ...config,
        signal,
        configurable: {
          ...config.configurable,
          correlationId: `${String(config.configurable?.run_id ?? "run")}:${callId}`,
          // MCP tools pass their server's progress reports here (mcp/tools.ts); the IDE shows them.
          onToolProgress: ((p) =>
            config.writer?.({
              type: "tool_progress",
              callId,
              name: call.name,
              ...p,
            } satisfies GraphEvent)) satisfies ToolProgressSink,
        },
      },
    )) as ToolMessage;
    const artifact = message.artifact as ToolArtifact | undefined;
    if (artifact?.isError) message.status = "error";
    return { message, outputs: outputsOf(call.name, artifact) };
  } catch (err) {
    if (config.signal?.aborted) throw err;
    if (timeout.aborted)
      return fail(`${call.name} did not finish within ${Math.round(timeoutMs / 1000)} s and was cancelled.`);
    return fail(`${call.name} failed: ${(err as Error).message}`);
  }
}

/** Files a tool call produced, from its structured result. */
function outputsOf(name: string, artifact: ToolArtifact | undefined): string[] {
  const s = artifact?.structuredContent;
  if (!s || artifact?.isError) return [];
  if (Array.isArray(s.outputs))
    return (s.outputs as { path?: unknown }[]).map((o) => o.path).filter((p): p is string => typeof p === "string");
  if (/write_file|edit_file/.test(name) && typeof s.path === "string" && s.applied !== false) return [s.path];
  return [];
}

/** Characters of a tool's result sent with `tool_end`; the IDE's tool card renders them as Markdown. */
const SUMMARY_CHARS = 4000;

/** The start of a tool's result with its lines kept (tables, lists, code), and how much was left out. */
function summarize(text: string): string {
  const t = text.trim();
  if (t.length <= SUMMARY_CHARS) return t;
  const cut = t.lastIndexOf("\n", SUMMARY_CHARS);
  const end = cut > SUMMARY_CHARS / 2 ? cut : SUMMARY_CHARS;
  return `${t.slice(0, end)}\n… (${t.length - end} more characters)`;
}

export type AgentGraph = ReturnType<typeof buildGraph>;
export type { BaseMessage };
