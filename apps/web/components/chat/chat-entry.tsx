"use client";

import type { ReactNode } from "react";
import { MarkdownPreview } from "@/components/editor/markdown-preview";
import type { ChatItem } from "@/lib/chat-items";
import { toolResultMarkdown } from "@/lib/tool-result";
import { deniedForUser, forUser } from "@/lib/user-text";
import styles from "./tool-result.module.css";

function argsPreview(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** The argument that holds a call's program, and its language: exec code or sql_query's statement. */
function programOf(name: string, args: Record<string, unknown>): { key: string; language: string } | null {
  if (typeof args.code === "string") {
    return { key: "code", language: name.endsWith("exec_run_python") ? "python" : "javascript" };
  }
  if (name.endsWith("sql_query") && typeof args.sql === "string") return { key: "sql", language: "sql" };
  return null;
}

/**
 * A call's arguments; a program (exec_run_js/exec_run_python code, sql_query's SQL) is shown as written
 * and highlighted in its language, not as an escaped JSON string.
 */
function ToolArgs({ name, args }: { name: string; args: Record<string, unknown> }): ReactNode {
  const program = programOf(name, args);
  if (!program) return <pre className="tool-args">{JSON.stringify(args, null, 2)}</pre>;
  const { [program.key]: source, ...rest } = args;
  const text = String(source);
  // A fence longer than any run of backticks in the program, so it cannot close the fence early.
  const fence = "`".repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((run) => run.length + 1)));
  return (
    <>
      {Object.keys(rest).length > 0 ? <pre className="tool-args">{JSON.stringify(rest, null, 2)}</pre> : null}
      <MarkdownPreview
        path=""
        source={`${fence}${program.language}\n${text}\n${fence}`}
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

/**
 * A tool's result rendered like an answer (Markdown, sanitised; tables, highlighted code, workspace paths
 * as links), bounded in height; a file read by fs_read_file shows as that file.
 */
function ResultText({
  name,
  args,
  text,
  onOpen,
}: {
  name: string;
  args: Record<string, unknown>;
  text: string;
  onOpen: (path: string) => void;
}): ReactNode {
  // Relative links in a Markdown file that was read resolve against that file.
  const base = name.endsWith("fs_read_file") && typeof args.path === "string" ? args.path : "";
  return (
    <MarkdownPreview
      path={base}
      source={toolResultMarkdown(name, args, text)}
      onOpen={onOpen}
      linkPaths
      className={`markdown-body tool-result ${styles.result}`}
    />
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
            {!item.done && item.progress ? <ToolProgress {...item.progress} /> : null}
          </summary>
          <div className="tool-section">Arguments</div>
          <ToolArgs name={item.name} args={item.args} />
          {item.summary !== undefined ? (
            <>
              <div className="tool-section">{item.isError ? "Error" : "Result"}</div>
              {item.summary ? (
                <ResultText
                  name={item.name}
                  args={item.args}
                  text={item.isError ? forUser(item.summary) : item.summary}
                  onOpen={onOpen}
                />
              ) : (
                <pre className="tool-summary">(empty)</pre>
              )}
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

/** A running call's progress as its MCP server reports it: a bar (indeterminate without a total) and the message. */
function ToolProgress({
  progress,
  total,
  message,
}: {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}) {
  return (
    <span className="tool-progress">
      {total !== undefined && total > 0 ? (
        <progress value={Math.min(progress, total)} max={total} aria-label={message ?? "progress"} />
      ) : (
        <progress aria-label={message ?? "progress"} />
      )}
      {message ? <span className="muted">{message}</span> : null}
    </span>
  );
}
