"use client";

import type { ReactNode } from "react";
import type { ThreadSummary } from "@/lib/api";

export interface ThreadListProps {
  threads: readonly ThreadSummary[] | undefined;
  /** Why the last listing failed (the threads shown, if any, are from before). */
  error?: string | undefined;
  current: string | undefined;
  onPick: (thread: ThreadSummary) => void;
}

/** Stored threads, newest first (`GET /api/threads`). */
export function ThreadList({ threads, error, current, onPick }: ThreadListProps): ReactNode {
  const problem = error ? <div className="msg error">Could not list the threads: {error}</div> : null;
  if (!threads) return problem ?? <div className="model-hint">Loading threads…</div>;
  if (threads.length === 0) return problem ?? <div className="model-hint">No threads yet.</div>;
  return (
    <>
      {problem}
      <ul className="thread-list" aria-label="Threads">
        {threads.map((t) => (
          <li key={t.threadId} aria-current={t.threadId === current} data-thread={t.threadId}>
            <button type="button" onClick={() => onPick(t)} title={t.title}>
              {t.runId || t.state === "running" ? "● " : ""}
              {t.title}
              {t.state === "interrupted" ? (
                <span
                  className="thread-state"
                  title="The server running this conversation stopped mid-run. Send a message to continue from the last saved step."
                >
                  interrupted
                </span>
              ) : null}
              <time dateTime={t.updatedAt}>{new Date(t.updatedAt).toLocaleString()}</time>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
