import { ToolMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";

/** The result a model reads for a tool call whose run stopped before the call finished. */
export const CUT_OFF_RESULT =
  "This tool call did not finish: the run was stopped (cancelled, or the server running it went away). " +
  "Its effects are unknown; check the workspace before relying on them or repeating the call.";

/**
 * A run cancelled or cut off mid-call leaves an assistant message whose tool calls have no results in the
 * checkpoint. The providers refuse such a history (every tool call needs its result right after it), so a
 * new message on that thread would fail; here each missing result is supplied, in the model's input only,
 * after the results that did arrive.
 */
export function answerCutOffCalls(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set(messages.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id));
  const out: BaseMessage[] = [];
  let missing: ToolMessage[] = [];
  for (const message of messages) {
    if (message.getType() !== "tool") {
      out.push(...missing);
      missing = [];
    }
    out.push(message);
    if (message.getType() === "ai") {
      missing = ((message as AIMessage).tool_calls ?? [])
        .filter((call) => call.id !== undefined && !answered.has(call.id))
        .map(
          (call) =>
            new ToolMessage({ tool_call_id: call.id!, name: call.name, content: CUT_OFF_RESULT, status: "error" }),
        );
    }
  }
  return out;
}
