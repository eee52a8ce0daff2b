import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { StructuredToolInterface } from "@langchain/core/tools";

/** One scripted turn: text, tool calls, a thrown error, or a function of the conversation. */
export type Turn =
  | string
  | { toolCalls: { name: string; args: Record<string, unknown> }[] }
  | { error: Error }
  | ((messages: BaseMessage[]) => string | { toolCalls: { name: string; args: Record<string, unknown> }[] });

/** A scripted tool-calling chat model: the only fake in the agent tests (the LLM boundary). */
export class ScriptedChatModel extends BaseChatModel {
  calls: BaseMessage[][] = [];
  boundTools: string[] = [];
  private turn = 0;

  constructor(
    private readonly script: Turn[],
    params: BaseChatModelParams = {},
  ) {
    super(params);
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: StructuredToolInterface[]) {
    this.boundTools = tools.map((t) => t.name);
    return this;
  }

  private next(messages: BaseMessage[]): AIMessage {
    this.calls.push(messages);
    const turn = this.script[Math.min(this.turn++, this.script.length - 1)];
    if (turn === undefined) return new AIMessage("(script exhausted)");
    const t = typeof turn === "function" ? turn(messages) : turn;
    if (typeof t === "string") return new AIMessage(t);
    if ("error" in t) throw t.error;
    return new AIMessage({
      content: "",
      tool_calls: t.toolCalls.map((c, i) => ({ ...c, id: `call_${this.turn}_${i}`, type: "tool_call" as const })),
    });
  }

  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.next(messages);
    return Promise.resolve({
      generations: [{ text: typeof message.content === "string" ? message.content : "", message }],
    });
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    run?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = this.next(messages);
    const text = typeof message.content === "string" ? message.content : "";
    if (message.tool_calls?.length) {
      yield new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({
          content: "",
          tool_call_chunks: message.tool_calls.map((c, index) => ({
            id: c.id,
            name: c.name,
            args: JSON.stringify(c.args),
            index,
            type: "tool_call_chunk" as const,
          })),
        }),
      });
      return;
    }
    for (const piece of text.match(/.{1,8}/gs) ?? [""]) {
      await run?.handleLLMNewToken(piece);
      yield new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
    }
  }
}
