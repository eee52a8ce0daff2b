/** What the chat shows, and how a stored thread's trace becomes it. */

import type { TraceMessage } from "@textide/shared";

export type ChatItem =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; runId: string; text: string; outputs: string[] }
  | {
      kind: "tool";
      id: string;
      name: string;
      args: Record<string, unknown>;
      done: boolean;
      isError?: boolean;
      /** The run ended (stopped or failed) before this call did. */
      cancelled?: boolean;
      /** The result's text (live runs send its first 4,000 characters); the card bounds what it shows. */
      summary?: string;
      durationMs?: number;
      outputs?: string[];
      /** The server's last progress report while the call runs (a bar on the running card). */
      progress?: { progress: number; total?: number | undefined; message?: string | undefined };
    }
  | {
      kind: "approval";
      id: string;
      name: string;
      args: Record<string, unknown>;
      decision?: "approve" | "reject";
    }
  | { kind: "error"; id: string; message: string }
  | { kind: "note"; id: string; text: string };

/**
 * A stored thread (`GET /api/threads/:id`) as chat items: user turns, assistant text, and one finished
 * tool card per call with its result (durations are not stored, so history cards have none). With
 * `approvals` on, tool calls still without a result at the end of the thread are a run paused for
 * approval, and come back as approval cards.
 */
export function historyToItems(threadId: string, messages: readonly TraceMessage[], approvals = false): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, number>();
  messages.forEach((m, i) => {
    const id = `h-${threadId}-${i}`;
    switch (m.role) {
      case "system":
        return;
      case "user":
        items.push({ kind: "user", id, text: m.content });
        return;
      case "assistant":
        if (m.content.trim() !== "")
          items.push({ kind: "assistant", id, runId: "history", text: m.content, outputs: [] });
        for (const call of m.toolCalls) {
          tools.set(call.id, items.length);
          items.push({ kind: "tool", id: `${id}-${call.id}`, name: call.name, args: call.args, done: false });
        }
        return;
      case "tool": {
        const at = tools.get(m.toolCallId);
        const done = { done: true, isError: m.isError, summary: m.content.trim() };
        const item = at === undefined ? undefined : items[at];
        if (item?.kind === "tool") items[at!] = { ...item, ...done };
        else items.push({ kind: "tool", id, name: m.name, args: {}, ...done });
        return;
      }
    }
  });
  if (!approvals) return items;
  let first = items.length;
  while (first > 0 && items[first - 1]?.kind === "tool" && !(items[first - 1] as { done: boolean }).done) first--;
  return items.map((item, i) =>
    i >= first && item.kind === "tool" ? { kind: "approval", id: item.id, name: item.name, args: item.args } : item,
  );
}
