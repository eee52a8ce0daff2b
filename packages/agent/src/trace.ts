import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { TraceMessage } from "@textide/shared";

/** The text of a message whose content may be a string or content blocks. */
export function textOf(message: BaseMessage): string {
  const c = message.content;
  if (typeof c === "string") return c;
  return c
    .map((b) => (typeof b === "string" ? b : b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}

/** A thread's messages in one provider-neutral format, for export as JSON. */
export function toTrace(messages: BaseMessage[], systemPrompt?: string): TraceMessage[] {
  const out: TraceMessage[] = systemPrompt ? [{ role: "system", content: systemPrompt }] : [];
  for (const m of messages) {
    const type = m.getType();
    if (type === "human") out.push({ role: "user", content: textOf(m) });
    else if (type === "system") out.push({ role: "system", content: textOf(m) });
    else if (type === "ai") {
      const ai = m as AIMessage;
      const usage = ai.usage_metadata;
      out.push({
        role: "assistant",
        content: textOf(ai),
        toolCalls: (ai.tool_calls ?? []).map((c) => ({ id: c.id ?? "", name: c.name, args: c.args })),
        ...(usage ? { usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } } : {}),
      });
    } else if (type === "tool") {
      const t = m as ToolMessage;
      out.push({
        role: "tool",
        toolCallId: t.tool_call_id,
        name: t.name ?? "",
        content: textOf(t),
        isError: t.status === "error",
      });
    }
  }
  return out;
}
