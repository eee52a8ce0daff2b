"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { useAgentChat, type ChatItem } from "@/hooks/use-agent-chat";
import { fetchModel, type ModelInfo } from "@/lib/api";

function formatArgs(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function ChatEntry({
  item,
  onOpen,
  onApprove,
}: {
  item: ChatItem;
  onOpen: (path: string) => void;
  onApprove: (d: "approve" | "reject") => void;
}): ReactNode {
  switch (item.kind) {
    case "user":
      return <div className="msg user">{item.text}</div>;
    case "assistant":
      return (
        <div className="msg assistant">
          <div className="msg-text">{item.text}</div>
          {item.outputs.map((p) => (
            <button key={p} type="button" className="output-link" onClick={() => onOpen(p)}>
              {p}
            </button>
          ))}
        </div>
      );
    case "tool":
      return (
        <details className={`tool-card${item.isError ? " error" : ""}`} data-tool={item.name}>
          <summary>
            <span className="tool-name">{item.name}</span>
            <span className="tool-state">
              {!item.done ? "running…" : item.cancelled ? "cancelled" : item.isError ? "error" : "ok"}
              {item.durationMs !== undefined ? ` · ${Math.round(item.durationMs)} ms` : ""}
            </span>
          </summary>
          <div className="tool-args">
            <code>{formatArgs(item.args)}</code>
          </div>
          {item.summary ? <div className="tool-summary">{item.summary}</div> : null}
        </details>
      );
    case "approval":
      return (
        <div className="tool-card approval">
          <div>
            Approve <span className="tool-name">{item.name}</span>?
          </div>
          <div className="tool-args">
            <code>{formatArgs(item.args)}</code>
          </div>
          {!item.answered ? (
            <div className="dialog-actions">
              <button type="button" onClick={() => onApprove("approve")}>
                Approve
              </button>
              <button type="button" className="danger" onClick={() => onApprove("reject")}>
                Reject
              </button>
            </div>
          ) : null}
        </div>
      );
    case "error":
      return <div className="msg error">{item.message}</div>;
    case "note":
      return <div className="msg note">{item.text}</div>;
  }
}

function Chat({ model, onOpen }: { model: ModelInfo; onOpen: (path: string) => void }): ReactNode {
  const chat = useAgentChat();
  const [text, setText] = useState("");
  const logRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [chat.items]);
  const submit = (): void => {
    const t = text.trim();
    if (!t || chat.running) return;
    chat.send(t);
    setText("");
  };
  return (
    <>
      <div className="chat-log" ref={logRef} aria-live="polite">
        {chat.items.length === 0 ? (
          <div className="chat-placeholder muted">
            Ask about your files: “chart planet radii from data/planets.xlsx”.
            {model.offline && model.configureHint ? <p>{model.configureHint}</p> : null}
          </div>
        ) : null}
        {chat.items.map((item) => (
          <ChatEntry key={item.id} item={item} onOpen={onOpen} onApprove={chat.approve} />
        ))}
      </div>
      <form
        className="chat-input"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <textarea
          placeholder="Ask about your files… (Enter to send, Shift+Enter for a new line)"
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
          {chat.running ? (
            <button type="button" className="danger" onClick={chat.stop}>
              Stop
            </button>
          ) : (
            <button type="submit" disabled={text.trim() === ""}>
              Send
            </button>
          )}
        </div>
      </form>
    </>
  );
}

/** The chat: a full agent chat when the server has the agent runtime (`GET /api/model`), else a placeholder. */
export function ChatPanel({ onOpen }: { onOpen: (path: string) => void }): ReactNode {
  const [model, setModel] = useState<ModelInfo | null>();
  useEffect(() => {
    void fetchModel().then((m) => setModel(m ?? null));
  }, []);
  return (
    <section className="chat-panel" aria-label="Chat">
      <header className="panel-header">
        <span>Chat</span>
        {model ? (
          <span className="model-label" title={model.id}>
            {model.label}
          </span>
        ) : null}
      </header>
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
