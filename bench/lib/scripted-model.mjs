// A scripted tool-calling chat model for benchmarking the agent loop without an LLM: the JS
// twin of packages/agent/test/fake-model.ts, reduced to what a timing run needs. It is
// stateless like a real model: the next turn depends only on the conversation it is sent.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { now } from "./timing.mjs";

/**
 * Answers with one call to `toolName` (args `{}`) until the current request has `steps` tool
 * results, then with `finalText`. `generateMs` accumulates the time spent inside `_generate`,
 * so a caller can subtract the model's own work from a run.
 */
export class ScriptedToolModel extends BaseChatModel {
  constructor({ toolName, steps, finalText = "done" }) {
    super({});
    this.toolName = toolName;
    this.steps = steps;
    this.finalText = finalText;
    this.generateMs = 0;
    this.calls = 0;
  }

  _llmType() {
    return "scripted";
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    const t0 = now();
    let done = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const type = messages[i].getType();
      if (type === "human") break;
      if (type === "tool") done++;
    }
    this.calls++;
    const message =
      done < this.steps
        ? new AIMessage({
            content: "",
            tool_calls: [{ name: this.toolName, args: {}, id: `call_${this.calls}`, type: "tool_call" }],
          })
        : new AIMessage(this.finalText);
    const text = typeof message.content === "string" ? message.content : "";
    this.generateMs += now() - t0;
    return { generations: [{ text, message }] };
  }
}
