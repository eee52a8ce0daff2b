import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { decide } from "./decide.js";
import { readTurn, STEP_MARKERS_KEY } from "./state.js";
import { WIRE, type Decision, type StepMarker, type WireTool } from "./types.js";

/*
 * The offline planner: a deterministic chat model with the interface of a real one, used when
 * no LLM is configured. It reads the conversation (request, its own earlier tool calls, their
 * results), decides the next step with fixed rules, and answers with either real tool calls or a
 * short factual text. It holds no state between calls.
 */

export const OFFLINE_PLANNER_MODEL = "offline-planner";

export interface OfflinePlannerCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

export interface OfflinePlannerFields extends BaseChatModelParams {
  /** Words per streamed chunk of a final answer (default 4). */
  wordsPerChunk?: number;
}

const ALL_TOOLS = Object.values(WIRE);

/** A tool's name from any of the shapes bindTools accepts (StructuredTool, OpenAI function, plain spec). */
function toolName(tool: BindToolsInput): string | undefined {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof t.name === "string") return t.name;
  if (t.function && typeof t.function.name === "string") return t.function.name;
  return undefined;
}

/**
 * Maps the bound tools' names to the bundled wire names. Adapters may prefix names
 * (`textide__fs_read_file`), so a name that ends with a wire name counts as that tool.
 */
export class ToolNames {
  private readonly toModel = new Map<WireTool, string>();

  constructor(names: readonly string[]) {
    for (const wire of ALL_TOOLS) {
      const exact = names.find((n) => n === wire);
      const suffixed = names.find((n) => n.endsWith(wire) && /[_.\-/]$/.test(n.slice(0, n.length - wire.length)));
      const name = exact ?? suffixed;
      if (name !== undefined) this.toModel.set(wire, name);
    }
  }

  /** No tools bound: assume the bundled server's tools under their wire names. */
  get unbound(): boolean {
    return this.toModel.size === 0;
  }

  has(wire: WireTool): boolean {
    return this.unbound || this.toModel.has(wire);
  }

  modelName(wire: WireTool): string {
    return this.toModel.get(wire) ?? wire;
  }

  wireName(name: string): WireTool | undefined {
    for (const [wire, model] of this.toModel) if (model === name) return wire;
    return (ALL_TOOLS as string[]).includes(name) ? (name as WireTool) : undefined;
  }
}

/** Splits an answer into chunks of a few words, keeping whitespace, so a UI sees it stream. */
export function chunkText(text: string, wordsPerChunk: number): string[] {
  const parts = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += wordsPerChunk) chunks.push(parts.slice(i, i + wordsPerChunk).join(""));
  return chunks.length > 0 ? chunks : [text];
}

export class OfflinePlanner extends BaseChatModel<OfflinePlannerCallOptions, AIMessageChunk> {
  /** Names of the bound tools (model-facing names). */
  boundTools: string[] = [];
  readonly model = OFFLINE_PLANNER_MODEL;
  private readonly wordsPerChunk: number;

  static override lc_name(): string {
    return "OfflinePlanner";
  }

  constructor(fields: OfflinePlannerFields = {}) {
    super(fields);
    this.wordsPerChunk = Math.max(1, fields.wordsPerChunk ?? 4);
  }

  override _llmType(): string {
    return OFFLINE_PLANNER_MODEL;
  }

  override getLsParams(options: this["ParsedCallOptions"]) {
    return { ...super.getLsParams(options), ls_provider: "textide", ls_model_name: OFFLINE_PLANNER_MODEL };
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<OfflinePlannerCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, OfflinePlannerCallOptions> {
    const next = new OfflinePlanner({ wordsPerChunk: this.wordsPerChunk });
    next.boundTools = [...this.boundTools, ...tools.map(toolName).filter((n): n is string => n !== undefined)];
    return next.withConfig({ tools, ...kwargs });
  }

  /** The decision for a message list, with tool names mapped to the bound ones. */
  private plan(messages: BaseMessage[], options: this["ParsedCallOptions"] | undefined) {
    const fromCall = (options?.tools ?? []).map(toolName).filter((n): n is string => n !== undefined);
    const names = new ToolNames([...new Set([...this.boundTools, ...fromCall])]);
    const turn = readTurn(messages, (n) => names.wireName(n));
    const decision: Decision = decide(turn, (t) => names.has(t));
    if ("answer" in decision) return { text: decision.answer, calls: [], markers: {} };
    const calls = decision.calls.map((c, i) => ({
      id: `call_${turn.toolCallCount + i + 1}`,
      name: names.modelName(c.name),
      args: c.args,
      marker: c.marker,
    }));
    const markers: Record<string, StepMarker> = {};
    for (const c of calls) if (c.marker) markers[c.id] = c.marker;
    return { text: "", calls: calls.map(({ marker: _marker, ...c }) => c), markers };
  }

  /** The step markers travel with the AI message, so later calls know what each call was. */
  private static kwargs(markers: Record<string, StepMarker>) {
    return Object.keys(markers).length > 0 ? { additional_kwargs: { [STEP_MARKERS_KEY]: markers } } : {};
  }

  private responseMetadata() {
    return { model_name: OFFLINE_PLANNER_MODEL };
  }

  override _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const { text, calls, markers } = this.plan(messages, options);
    const message = new AIMessage({
      content: text,
      ...OfflinePlanner.kwargs(markers),
      tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })),
      response_metadata: this.responseMetadata(),
    });
    return Promise.resolve({ generations: [{ text, message }] });
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { text, calls, markers } = this.plan(messages, options);
    if (calls.length > 0) {
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({
          content: "",
          ...OfflinePlanner.kwargs(markers),
          tool_call_chunks: calls.map((c, index) => ({
            id: c.id,
            name: c.name,
            args: JSON.stringify(c.args),
            index,
            type: "tool_call_chunk" as const,
          })),
          response_metadata: this.responseMetadata(),
        }),
      });
      yield chunk;
      return;
    }
    const pieces = chunkText(text, this.wordsPerChunk);
    for (let i = 0; i < pieces.length; i++) {
      if (options.signal?.aborted) break;
      const piece = pieces[i]!;
      const chunk = new ChatGenerationChunk({
        text: piece,
        message: new AIMessageChunk({
          content: piece,
          ...(i === pieces.length - 1 ? { response_metadata: this.responseMetadata() } : {}),
        }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
