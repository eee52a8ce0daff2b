import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/** Where a thread's last run stands: under way, finished (or never started), or cut off by a dead instance. */
export type RunState = "running" | "idle" | "interrupted";

/** What people see while the thread database (Postgres) is away. */
export const THREAD_DB_DOWN =
  "The thread database is not reachable right now. Conversations saved so far are kept; try again in a moment " +
  "(the server reconnects by itself once the database is back).";

const TITLE_MAX = 80;

/** A thread's title in the list: its first request, shortened. */
export function threadTitleOf(firstRequest: string): string {
  const text = firstRequest.trim();
  return text.length > TITLE_MAX ? `${text.slice(0, TITLE_MAX - 1)}…` : text || "(empty thread)";
}

/** One row of the thread metadata table. */
export interface StoredThread {
  threadId: string;
  owner: string;
  /** The first request, shortened; undefined for threads from before the metadata table (filled in lazily). */
  title: string | undefined;
  /** ISO-8601. */
  updatedAt: string;
  state: RunState;
}

/**
 * Threads: their checkpoints (a LangGraph checkpointer) and, beside them, who owns each thread and whether a
 * run of it is under way and on which instance. SQLite (one process, the embedded default) and Postgres (a
 * team deployment: several instances on one database) implement it.
 */
export interface ThreadStore {
  readonly checkpointer: BaseCheckpointSaver;
  /** `"sqlite"` or `"postgres"`, for logs. */
  readonly backend: string;
  /** Threads with at least one checkpoint, newest first; only `owner`'s when given. One query. */
  list(owner: string | undefined): Promise<StoredThread[]>;
  /** The thread's owner; undefined when there is no such thread. */
  ownerOf(threadId: string): Promise<string | undefined>;
  /**
   * Records `owner` as the owner of a new thread (with its title); true when `owner` owns the thread
   * afterwards, false when another owner had it. Atomic across processes: of two claims of one new thread
   * id, exactly one wins.
   */
  claim(threadId: string, owner: string, title?: string): Promise<boolean>;
  /** Sets a title where none is stored (threads from before the metadata table). */
  setTitle(threadId: string, title: string): Promise<void>;
  /**
   * `"running"` when `instanceId` starts a run of the thread. `"idle"`/`"interrupted"` apply only while the
   * thread is still `instanceId`'s, so a late end of a run never overwrites another instance's newer run.
   */
  markRun(threadId: string, state: RunState, instanceId: string): Promise<void>;
  /** Marks the running threads of `instanceId` (a dead instance, or this one restarted) interrupted; their ids. */
  markInterrupted(instanceId: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Connection-level failures of node-postgres and Postgres (server down, restarting, connection lost): the
 * request may work again once the database is back, unlike a bad query.
 */
export function isThreadStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === "string" ? e.code : "";
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now).
  if (/^08|^57P0[123]$|^ECONNREFUSED$|^ECONNRESET$|^ETIMEDOUT$|^EPIPE$|^ENOTFOUND$|^EAI_AGAIN$/.test(code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  // node-postgres's own messages (pg-pool, pg's client): a dropped connection, a connect that timed out.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}
