import type { TraceMessage } from "../agent-events.js";

/** One entry of `GET /api/threads`, titled by its first request. */
export interface ThreadSummary {
  threadId: string;
  title: string;
  updatedAt: string;
  /** Set while a run of this thread is under way. */
  runId?: string;
}

export interface ThreadsResponse {
  threads: ThreadSummary[];
}

/** `GET /api/threads/:id`: the thread's messages as a provider-neutral trace. */
export interface ThreadResponse {
  threadId: string;
  messages: TraceMessage[];
}
