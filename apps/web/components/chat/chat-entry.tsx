"use client";

import type { ReactNode } from "react";
import { MarkdownPreview } from "@/components/editor/markdown-preview";
import { splitAnswer } from "@/lib/answer-links";
import type { ChatItem } from "@/lib/chat-items";
import { deniedForUser, forUser } from "@/lib/user-text";

function argsPreview(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/**
 * A call's arguments; code (exec_run_js, exec_run_python) is shown as written and highlighted in its
 * language, not as an escaped JSON string.
 */
function ToolArgs({ name, args }: { name: string; args: Record<string, unknown> }): ReactNode {
  const { code, ...rest } = args;
  if (typeof code !== "string") return <pre className="tool-args">{JSON.stringify(args, null, 2)}</pre>;
  // A fence longer than any run of backticks in the code, so the code cannot close it early.
  const fence = "`".repeat(Math.max(3, ...(code.match(/`+/g) ?? []).map((run) => run.length + 1)));
  const language = name.endsWith("exec_run_python") ? "python" : "javascript";
  return (
    <>
      {Object.keys(rest).length > 0 ? <pre className="tool-args">{JSON.stringify(rest, null, 2)}</pre> : null}
      <MarkdownPreview
        path=""
        source={`${fence}${language}\n${code}\n${fence}`}
        onOpen={() => undefined}
        className="tool-args tool-code markdown-body"
      />
    </>
  );
}

/** Answer text as Markdown, with workspace paths as links that open the file. */
function AnswerText({ text, onOpen }: { text: string; onOpen: (path: string) => void }): ReactNode {
  return <MarkdownPreview path="" source={text} onOpen={onOpen} linkPaths className="msg-text markdown-body" />;
}

/** A tool's result as the plain text it is, with workspace paths as links. */
function ResultText({ text, onOpen }: { text: string; onOpen: (path: string) => void }): ReactNode {
  return splitAnswer(text).map((part, i) =>
    "path" in part ? (
      <a
        key={i}
        href={`#${encodeURIComponent(part.path)}`}
        className="path-link"
        data-path={part.path}
        title={`Open ${part.path}`}
        onClick={(e) => {
          e.preventDefault();
          onOpen(part.path);
        }}
      >
        {part.text}
      </a>
    ) : (
      part.text
    ),
  );
}

function Outputs({ paths, onOpen }: { paths: readonly string[]; onOpen: (path: string) => void }): ReactNode {
  return paths.map((p) => (
    <button key={p} type="button" className="output-link" onClick={() => onOpen(p)} title={`Open ${p}`}>
      {p}
    </button>
  ));
}

export interface ChatEntryProps {
  item: ChatItem;
  onOpen: (path: string) => void;
  onApprove: (decision: "approve" | "reject") => void;
}

/** One item of the chat log: a message, a tool card, an approval card, or a note. */
export function ChatEntry({ item, onOpen, onApprove }: ChatEntryProps): ReactNode {
  switch (item.kind) {
    case "user":
      return <div className="msg user">{item.text}</div>;
    case "assistant":
      return (
        <div className="msg assistant">
          <AnswerText text={deniedForUser(item.text)} onOpen={onOpen} />
          <Outputs paths={item.outputs} onOpen={onOpen} />
        </div>
      );
    case "tool": {
      const state = !item.done ? "running…" : item.cancelled ? "cancelled" : item.isError ? "error" : "ok";
      return (
        <details className={`tool-card${item.isError ? " error" : ""}`} data-tool={item.name} data-state={state}>
          <summary>
            <span className="tool-name">{item.name}</span>
            <span className="tool-args-inline muted">{argsPreview(item.args)}</span>
            <span className="tool-state">
              {state}
              {item.durationMs !== undefined ? ` · ${Math.round(item.durationMs)} ms` : ""}
            </span>
          </summary>
          <div className="tool-section">Arguments</div>
          <ToolArgs name={item.name} args={item.args} />
          {item.summary !== undefined ? (
            <>
              <div className="tool-section">{item.isError ? "Error" : "Result"}</div>
              <pre className="tool-summary">
                {item.summary ? (
                  <ResultText text={item.isError ? forUser(item.summary) : item.summary} onOpen={onOpen} />
                ) : (
                  "(empty)"
                )}
              </pre>
            </>
          ) : null}
          {item.outputs?.length ? (
            <div className="tool-outputs">
              <Outputs paths={item.outputs} onOpen={onOpen} />
            </div>
          ) : null}
        </details>
      );
    }
    case "approval":
      return (
        <div className="tool-card approval" data-tool={item.name} role="group" aria-label={`Approve ${item.name}`}>
          <div>
            The agent wants to run <span className="tool-name">{item.name}</span>
          </div>
          <ToolArgs name={item.name} args={item.args} />
          {item.decision === undefined ? (
            <div className="dialog-actions">
              <button type="button" onClick={() => onApprove("approve")} title="Let the agent run this tool call">
                Approve
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => onApprove("reject")}
                title="Refuse this tool call"
              >
                Deny
              </button>
            </div>
          ) : (
            <div className="tool-state">{item.decision === "approve" ? "approved" : "denied"}</div>
          )}
        </div>
      );
    case "error":
      return <div className="msg error">{forUser(item.message)}</div>;
    case "note":
      return <div className="msg note">{item.text}</div>;
  }
}
