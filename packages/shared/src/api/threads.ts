import type { TraceMessage } from "../agent-events.js";

/** One entry of `GET /api/threads`, titled by its first request. */
export interface ThreadSummary {
  threadId: string;
  title: string;
  updatedAt: string;
  /** Set while a run of this thread is under way. */
  runId?: string;
  /**
   * Its last run: under way (on any instance), finished, or cut off when the instance running it stopped
   * (send a new message to continue from the last saved step). Absent from servers without the thread store.
   */
  state?: "running" | "idle" | "interrupted";
}

export interface ThreadsResponse {
  threads: ThreadSummary[];
}

/** `GET /api/threads/:id`: the thread's messages as a provider-neutral trace. */
export interface ThreadResponse {
  threadId: string;
  messages: TraceMessage[];
}
