"use client";

import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { useAgentChat } from "@/hooks/use-agent-chat";
import { fetchModel, fetchThreads, type ModelInfo, type ThreadSummary } from "@/lib/api";
import { searchFiles } from "@/lib/file-ops";
import { baseName } from "@/lib/types";
import { ChatEntry } from "./chat-entry";
import { ThreadList } from "./thread-list";

/**
 * The file a link in an answer means. Links carry workspace paths, but a model may name a file without its
 * folder ("missions.json" after listing data/): a bare name that is not at the top of the workspace opens
 * the file of that name the index ranks first.
 */
async function answerTarget(path: string): Promise<string> {
  if (path.includes("/")) return path;
  try {
    const { hits } = await searchFiles(path, 50);
    const named = hits.map((h) => h.path).filter((p) => baseName(p) === path);
    return named.includes(path) ? path : (named[0] ?? path);
  } catch {
    return path;
  }
}

const SEND_TITLE = "Send (Enter; Shift+Enter for a new line)";
const STOP_TITLE = "Stop the run (Esc or Ctrl+.)";

function Chat({ model, onOpen }: { model: ModelInfo; onOpen: (path: string) => void }): ReactNode {
  const [threads, setThreads] = useState<ThreadSummary[]>();
  const [threadsError, setThreadsError] = useState<string>();
  const [showThreads, setShowThreads] = useState(false);
  const refreshThreads = useCallback(() => {
    fetchThreads().then(
      (list) => {
        setThreads(list);
        setThreadsError(undefined);
      },
      // E.g. the thread database of a team deployment is away: say so rather than show an empty list.
      (err: unknown) => setThreadsError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  const chat = useAgentChat({ approvals: model.approvals === true, onSettled: refreshThreads });
  const [text, setText] = useState("");
  const [loadError, setLoadError] = useState<string>();
  const logRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const { running, stop } = chat;
  const openLink = useCallback((path: string) => void answerTarget(path).then(onOpen), [onOpen]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [chat.items]);
  useEffect(refreshThreads, [refreshThreads]);
  useEffect(() => {
    // Ctrl+. works anywhere in the IDE; Esc only inside the chat (Monaco and dialogs use it too).
    const onKey = (e: KeyboardEvent): void => {
      if (running && e.ctrlKey && e.key === ".") {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [running, stop]);

  const submit = (): void => {
    const t = text.trim();
    if (!t || chat.running || chat.awaitingApproval) return;
    chat.send(t);
    setText("");
  };
  const pick = (t: ThreadSummary): void => {
    setShowThreads(false);
    setLoadError(undefined);
    chat.openThread(t.threadId, t.runId).catch((err: unknown) => {
      setLoadError(`Could not load the thread: ${err instanceof Error ? err.message : String(err)}`);
    });
  };

  return (
    <div
      className="chat-body"
      onKeyDown={(e) => {
        if (e.key === "Escape" && running) {
          e.preventDefault();
          stop();
        }
      }}
    >
      <div className="thread-bar">
        <button
          type="button"
          aria-expanded={showThreads}
          onClick={() => {
            if (!showThreads) refreshThreads();
            setShowThreads((s) => !s);
          }}
          title="Show stored threads"
        >
          Threads{threads ? ` (${threads.length})` : ""} {showThreads ? "▴" : "▾"}
        </button>
        <button
          type="button"
          onClick={() => {
            chat.newThread();
            setShowThreads(false);
            inputRef.current?.focus();
          }}
          disabled={chat.running}
          title="Start a new thread"
        >
          New thread
        </button>
      </div>
      {showThreads ? <ThreadList threads={threads} error={threadsError} current={chat.threadId} onPick={pick} /> : null}
      <div className="chat-log" ref={logRef} aria-live="polite">
        {loadError ? <div className="msg error">{loadError}</div> : null}
        {chat.items.length === 0 ? (
          <div className="chat-placeholder muted">
            Ask about your files: “chart planet radii from data/planets.xlsx”.
            {model.offline && model.configureHint ? <p>{model.configureHint}</p> : null}
          </div>
        ) : null}
        {chat.items.map((item) => (
          <ChatEntry key={item.id} item={item} onOpen={openLink} onApprove={chat.approve} />
        ))}
      </div>
      {chat.awaitingApproval && !chat.running ? (
        <div className="chat-blocked" role="status">
          Approve or deny the step above to continue; a new message would drop the request.
        </div>
      ) : null}
      <form
        className="chat-input"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <textarea
          ref={inputRef}
          aria-label="Message"
          placeholder="Ask about your files…"
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
        />
        <div className="chat-actions">
          <span className="chat-hint">{chat.running ? "Esc stops" : "Enter sends · Shift+Enter new line"}</span>
          {chat.running ? (
            <button type="button" className="danger" onClick={chat.stop} title={STOP_TITLE}>
              Stop
            </button>
          ) : (
            <button
              type="submit"
              disabled={text.trim() === "" || chat.awaitingApproval}
              title={chat.awaitingApproval ? "Answer the approval request first" : SEND_TITLE}
            >
              Send
            </button>
          )}
        </div>
      </form>
    </div>
  );
}

/** The model in use; the offline planner says so, and a click shows how to configure an LLM. */
function ModelLabel({ model, onToggleHint }: { model: ModelInfo; onToggleHint: () => void }): ReactNode {
  if (!model.offline)
    return (
      <span className="model-label" title={model.id}>
        {model.label}
      </span>
    );
  return (
    <button
      type="button"
      className="model-label offline"
      title={model.configureHint ?? "The built-in offline planner: no LLM is configured."}
      onClick={onToggleHint}
    >
      {model.label} (?)
    </button>
  );
}

/** The chat: a full agent chat when the server has the agent runtime (`GET /api/model`), else a placeholder. */
export function ChatPanel({ onOpen }: { onOpen: (path: string) => void }): ReactNode {
  const [model, setModel] = useState<ModelInfo | null>();
  const [hint, setHint] = useState(false);
  useEffect(() => {
    void fetchModel().then((m) => setModel(m ?? null));
  }, []);
  return (
    <section className="chat-panel" aria-label="Chat">
      <header className="panel-header">
        <span>Chat</span>
        {model ? <ModelLabel model={model} onToggleHint={() => setHint((h) => !h)} /> : null}
      </header>
      {hint && model?.configureHint ? <p className="model-hint">{model.configureHint}</p> : null}
      {model ? (
        <Chat model={model} onOpen={onOpen} />
      ) : (
        <div className="chat-placeholder">
          <p>{model === undefined ? "Connecting…" : "Agent coming."}</p>
          {model === null ? (
            <p className="muted">This server runs without the agent runtime; chat appears here once it is wired in.</p>
          ) : null}
        </div>
      )}
    </section>
  );
}
