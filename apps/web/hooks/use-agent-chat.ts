"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useSocketEvent } from "@/hooks/use-socket-event";
import { fetchThread, fetchThreads } from "@/lib/api";
import { historyToItems, type ChatItem } from "@/lib/chat-items";
import { getSocket } from "@/lib/socket-client";
import type { AgentEvent } from "@/lib/types";

export type { ChatItem };

export interface AgentChat {
  items: ChatItem[];
  running: boolean;
  /** An approval card waits for an answer: a new message would drop the paused request. */
  awaitingApproval: boolean;
  /** The thread shown (undefined for a new, not yet started one). */
  threadId: string | undefined;
  send: (text: string) => void;
  stop: () => void;
  approve: (decision: "approve" | "reject") => void;
  /** Starts a new, empty thread. */
  newThread: () => void;
  /** Shows a stored thread (`runId` if a run of it is under way); the next message continues it. */
  openThread: (threadId: string, runId?: string) => Promise<void>;
}

/** Where the shown thread's id is kept between reloads. */
const THREAD_KEY = "textide-thread";

let seq = 0;
const nextId = (): string => `c${++seq}`;

/** A run that ended leaves no card spinning: its unfinished tool calls will never report an end. */
const settleTools = (items: ChatItem[]): ChatItem[] =>
  items.map((i) => (i.kind === "tool" && !i.done ? { ...i, done: true, cancelled: true } : i));

/**
 * One chat thread driven by `agent/run` / `agent/event` / `agent/cancel` / `agent/approve` over the page's
 * socket. `onSettled` is called when a run ends (the thread list refreshes then).
 */
export function useAgentChat(options: { approvals: boolean; onSettled?: () => void }): AgentChat {
  const [items, setItems] = useState<ChatItem[]>([]);
  const [runId, setRunId] = useState<string>();
  const [threadId, setThreadId] = useState<string>();
  const thread = useRef<string>(undefined);
  const awaitingThread = useRef(false);
  const settledRef = useRef(options.onSettled);
  settledRef.current = options.onSettled;
  const { approvals } = options;

  const push = useCallback((item: ChatItem) => setItems((prev) => [...prev, item]), []);
  const showThread = useCallback((id: string | undefined) => {
    thread.current = id;
    setThreadId(id);
    // The thread shown comes back after a reload.
    if (id === undefined) localStorage.removeItem(THREAD_KEY);
    else localStorage.setItem(THREAD_KEY, id);
  }, []);

  useSocketEvent("agent/event", (e: AgentEvent) => {
    if (thread.current === undefined && awaitingThread.current && e.type === "run_started") showThread(e.threadId);
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
      case "tool_progress": {
        const progress = { progress: e.progress, total: e.total, message: e.message };
        setItems((prev) =>
          prev.map((i) => (i.kind === "tool" && i.id === e.callId && !i.done ? { ...i, progress } : i)),
        );
        break;
      }
      case "tool_end":
        setItems((prev) => {
          const update = {
            done: true,
            isError: e.isError,
            summary: e.summary,
            durationMs: e.durationMs,
            outputs: e.outputs,
          };
          const found = prev.some((i) => i.kind === "tool" && i.id === e.callId);
          if (!found) return [...prev, { kind: "tool", id: e.callId, name: e.name, args: {}, ...update }];
          return prev.map((i) => (i.kind === "tool" && i.id === e.callId ? { ...i, ...update } : i));
        });
        break;
      case "approval_required":
        push({ kind: "approval", id: e.callId, name: e.name, args: e.args });
        break;
      case "final": {
        // A stopped run ends with one note ("Stopped."), not also the agent's "Cancelled." text.
        const text =
          e.stopReason === "cancelled" ? e.text.replace(/(?:^|\n\n)\(cancelled\)$|^Cancelled\.$/, "") : e.text;
        // A run paused for approval has no answer yet: its approval card says what waits.
        if (e.stopReason !== "awaiting_approval")
          setItems((prev) => {
            const last = prev[prev.length - 1];
            if (last?.kind === "assistant" && last.runId === e.runId)
              return [...prev.slice(0, -1), { ...last, text: text || last.text, outputs: e.outputs }];
            if (text === "" && e.outputs.length === 0) return prev;
            return [...prev, { kind: "assistant", id: nextId(), runId: e.runId, text, outputs: e.outputs }];
          });
        if (e.stopReason === "cancelled") push({ kind: "note", id: nextId(), text: "Stopped." });
        if (e.stopReason === "recursion_limit") push({ kind: "note", id: nextId(), text: "Stopped: step limit." });
        // A run paused for approval resumes its pending calls; any other end leaves none running.
        if (e.stopReason !== "awaiting_approval") setItems(settleTools);
        setRunId(undefined);
        settledRef.current?.();
        break;
      }
      case "error":
        setItems(settleTools);
        push({ kind: "error", id: nextId(), message: `${e.message} (${e.code})` });
        setRunId(undefined);
        settledRef.current?.();
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
          showThread(reply.data.threadId);
          setRunId((r) => (r === "pending" ? reply.data.runId : r));
        } else {
          push({ kind: "error", id: nextId(), message: reply.error.message });
          setRunId(undefined);
        }
      });
    },
    [push, showThread],
  );

  const stop = useCallback(() => {
    if (!runId || runId === "pending") return;
    getSocket().emit("agent/cancel", { runId }, (reply) => {
      if (!reply.ok) push({ kind: "error", id: nextId(), message: reply.error.message });
    });
  }, [push, runId]);

  const approve = useCallback(
    (decision: "approve" | "reject") => {
      const id = thread.current;
      if (!id) return;
      setItems((prev) => prev.map((i) => (i.kind === "approval" && !i.decision ? { ...i, decision } : i)));
      setRunId("pending");
      getSocket().emit("agent/approve", { threadId: id, decision }, (reply) => {
        if (reply.ok) setRunId((r) => (r === "pending" ? reply.data.runId : r));
        else {
          push({ kind: "error", id: nextId(), message: reply.error.message });
          setRunId(undefined);
        }
      });
    },
    [push],
  );

  const newThread = useCallback(() => {
    showThread(undefined);
    setItems([]);
    setRunId(undefined);
  }, [showThread]);

  const opening = useRef(0);
  const openThread = useCallback(
    async (id: string, active?: string) => {
      const request = ++opening.current;
      const messages = await fetchThread(id);
      // Threads picked in quick succession: only the last pick may fill the chat.
      if (request !== opening.current) return;
      showThread(id);
      setItems(historyToItems(id, messages, approvals && active === undefined));
      setRunId(active);
    },
    [approvals, showThread],
  );

  // The server sends a run's events only to the windows following its thread: follow the one shown,
  // again after a reconnect (a new connection follows nothing).
  useEffect(() => {
    const socket = getSocket();
    const follow = (): void => void socket.emit("agent/follow", { threadId: threadId ?? null }, () => undefined);
    socket.on("connect", follow);
    if (socket.connected) follow();
    return () => void socket.off("connect", follow);
  }, [threadId]);

  const awaitingApproval = items.some((i) => i.kind === "approval" && i.decision === undefined);
  // After a reload: show the thread that was shown before (if it still exists and nothing started since).
  useEffect(() => {
    const saved = localStorage.getItem(THREAD_KEY);
    if (!saved) return;
    let cancelled = false;
    fetchThreads()
      .then(async (threads) => {
        const t = threads.find((x) => x.threadId === saved);
        if (cancelled || thread.current !== undefined || awaitingThread.current) return;
        if (t) await openThread(t.threadId, t.runId);
        else localStorage.removeItem(THREAD_KEY);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [openThread]);

  return {
    items,
    running: runId !== undefined,
    awaitingApproval,
    threadId,
    send,
    stop,
    approve,
    newThread,
    openThread,
  };
}
