"use client";

import { useMemo, useState, type ReactNode } from "react";
import { useMcpCalls } from "@/hooks/use-mcp-calls";
import { filterCalls, type StatusFilter } from "@/lib/mcp-calls";
import { CallTable } from "./call-table";
import styles from "./console.module.css";

/** The bottom console: every MCP tool call of the agent's server and of external clients, filterable. */
export function ConsolePanel({ onClose }: { onClose: () => void }): ReactNode {
  const { calls, error } = useMcpCalls();
  const [text, setText] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const shown = useMemo(() => filterCalls(calls, text, status), [calls, text, status]);
  const errors = useMemo(() => calls.filter((c) => c.status !== "ok").length, [calls]);

  return (
    <section className={styles.console} aria-label="Console">
      <header className={`panel-header ${styles.header}`}>
        <span>MCP calls</span>
        <input
          type="search"
          className={styles.filter}
          placeholder="Filter: tool, status, args"
          aria-label="Filter calls"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <select
          className={styles.select}
          aria-label="Status"
          value={status}
          onChange={(e) => setStatus(e.target.value as StatusFilter)}
        >
          <option value="all">All</option>
          <option value="errors">Errors ({errors})</option>
        </select>
        <span className={styles.count} aria-live="polite">
          {shown.length === calls.length ? `${calls.length}` : `${shown.length} / ${calls.length}`}
        </span>
        <button
          type="button"
          className={styles.close}
          aria-label="Close console"
          title="Close (Ctrl+`)"
          onClick={onClose}
        >
          ×
        </button>
      </header>
      {error ? <div className={styles.note}>Could not load the call log: {error}</div> : null}
      {calls.length === 0 && !error ? (
        <div className={styles.note}>No MCP tool calls yet. Ask the agent, or connect an MCP client.</div>
      ) : (
        <CallTable calls={shown} />
      )}
    </section>
  );
}
