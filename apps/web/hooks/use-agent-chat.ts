"use client";

import { useCallback, useRef, useState } from "react";
import { useSocketEvent } from "@/hooks/use-socket-event";
import { getSocket } from "@/lib/socket-client";
import type { AgentEvent } from "@/lib/types";

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
      summary?: string;
      durationMs?: number;
    }
  | { kind: "approval"; id: string; name: string; args: Record<string, unknown>; answered: boolean }
  | { kind: "error"; id: string; message: string }
  | { kind: "note"; id: string; text: string };

export interface AgentChat {
  items: ChatItem[];
  running: boolean;
  send: (text: string) => void;
  stop: () => void;
  approve: (decision: "approve" | "reject") => void;
}

let seq = 0;
const nextId = (): string => `c${++seq}`;

/** A run that ended leaves no card spinning: its unfinished tool calls will never report an end. */
const settleTools = (items: ChatItem[]): ChatItem[] =>
  items.map((i) => (i.kind === "tool" && !i.done ? { ...i, done: true, cancelled: true } : i));

/** One chat thread driven by `agent/run` / `agent/event` / `agent/cancel` over the page's socket. */
export function useAgentChat(): AgentChat {
  const [items, setItems] = useState<ChatItem[]>([]);
  const [runId, setRunId] = useState<string>();
  const thread = useRef<string>(undefined);
  const awaitingThread = useRef(false);

  const push = useCallback((item: ChatItem) => setItems((prev) => [...prev, item]), []);

  useSocketEvent("agent/event", (e: AgentEvent) => {
    if (thread.current === undefined && awaitingThread.current && e.type === "run_started") thread.current = e.threadId;
    if (e.threadId !== thread.current) return;
    switch (e.type) {
      case "run_started":
        setRunId(e.runId);
        break;
      case "token":
        setItems((prev) => {
          const last = prev[prev.length - 1];
          if (last?.kind === "assistant" && last.runId === e.runId)
            return [...prev.slice(0, -1), { ...last, text: last.text + e.text }];
          return [...prev, { kind: "assistant", id: nextId(), runId: e.runId, text: e.text, outputs: [] }];
        });
        break;
      case "tool_start":
        push({ kind: "tool", id: e.callId, name: e.name, args: e.args, done: false });
        break;
      case "tool_end":
        setItems((prev) => {
          const update = {
            done: true,
            isError: e.isError,
            summary: e.summary,
            durationMs: e.durationMs,
          };
          const found = prev.some((i) => i.kind === "tool" && i.id === e.callId);
          if (!found) return [...prev, { kind: "tool", id: e.callId, name: e.name, args: {}, ...update }];
          return prev.map((i) => (i.kind === "tool" && i.id === e.callId ? { ...i, ...update } : i));
        });
        break;
      case "approval_required":
        push({ kind: "approval", id: e.callId, name: e.name, args: e.args, answered: false });
        break;
      case "final":
        setItems((prev) => {
          const last = prev[prev.length - 1];
          if (last?.kind === "assistant" && last.runId === e.runId)
            return [...prev.slice(0, -1), { ...last, text: e.text || last.text, outputs: e.outputs }];
          if (e.text === "" && e.outputs.length === 0) return prev;
          return [...prev, { kind: "assistant", id: nextId(), runId: e.runId, text: e.text, outputs: e.outputs }];
        });
        if (e.stopReason === "cancelled") push({ kind: "note", id: nextId(), text: "Stopped." });
        if (e.stopReason === "recursion_limit") push({ kind: "note", id: nextId(), text: "Stopped: step limit." });
        if (e.stopReason !== "awaiting_approval") {
          setItems(settleTools);
          setRunId(undefined);
        }
        break;
      case "error":
        setItems(settleTools);
        push({ kind: "error", id: nextId(), message: `${e.message} (${e.code})` });
        setRunId(undefined);
        break;
    }
  });

  const send = useCallback(
    (text: string) => {
      push({ kind: "user", id: nextId(), text });
      awaitingThread.current = thread.current === undefined;
      setRunId("pending");
      getSocket().emit("agent/run", { threadId: thread.current, text }, (reply) => {
        awaitingThread.current = false;
        if (reply.ok) {
          thread.current = reply.data.threadId;
          setRunId((r) => (r === "pending" ? reply.data.runId : r));
        } else {
          push({ kind: "error", id: nextId(), message: reply.error.message });
          setRunId(undefined);
        }
      });
    },
    [push],
  );

  const stop = useCallback(() => {
    if (!runId || runId === "pending") return;
    getSocket().emit("agent/cancel", { runId }, (reply) => {
      if (!reply.ok) push({ kind: "error", id: nextId(), message: reply.error.message });
    });
  }, [push, runId]);

  const approve = useCallback(
    (decision: "approve" | "reject") => {
      const threadId = thread.current;
      if (!threadId) return;
      setItems((prev) => prev.map((i) => (i.kind === "approval" ? { ...i, answered: true } : i)));
      getSocket().emit("agent/approve", { threadId, decision }, (reply) => {
        if (reply.ok) setRunId(reply.data.runId);
        else push({ kind: "error", id: nextId(), message: reply.error.message });
      });
    },
    [push],
  );

  return { items, running: runId !== undefined, send, stop, approve };
}
