import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import type { RunState, StoredThread, ThreadStore } from "./thread-store.js";

/** `MIGRATIONS[n]` takes the metadata from version `n` to `n + 1`. Never edit a shipped entry. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE textide_threads (
    thread_id   TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    title       TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    run_state   TEXT NOT NULL DEFAULT 'idle' CHECK (run_state IN ('running', 'idle', 'interrupted')),
    instance_id TEXT
  );
  CREATE INDEX textide_threads_owner ON textide_threads (owner, updated_at DESC);
  CREATE INDEX textide_threads_running ON textide_threads (instance_id) WHERE run_state = 'running';
  `,
];

/** Any constant: every instance takes this advisory lock while it creates or upgrades the tables. */
const SETUP_LOCK = 0x7465787469;

export interface PostgresThreadStoreOptions {
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection before failing the request (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Idle connections lost to a restart or network blip land here instead of crashing the process. */
  onPoolError?: (err: Error) => void;
}

/**
 * Threads in Postgres: checkpoints through the official `PostgresSaver` and the metadata table
 * `textide_threads`, over one `pg.Pool`. The pool reconnects by itself, so after an outage the next request
 * works; until then requests fail with connection errors (see `isThreadStoreUnavailable`).
 *
 * The tables are created on first use, not in the constructor, so that a server started while Postgres is
 * down comes up and answers "unavailable" until it returns.
 */
export class PostgresThreadStore implements ThreadStore {
  readonly backend = "postgres";
  readonly checkpointer: PostgresSaver;
  readonly #pool: pg.Pool;
  #setup: Promise<void> | undefined;

  constructor(url: string, options: PostgresThreadStoreOptions = {}) {
    this.#pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 10_000,
    });
    this.#pool.on("error", (err) => options.onPoolError?.(err));
    this.checkpointer = new PostgresSaver(this.#pool);
  }

  /** Creates or upgrades the checkpointer's and the metadata tables once; a failed attempt is retried next time. */
  ready(): Promise<void> {
    this.#setup ??= this.#migrate().catch((err: unknown) => {
      this.#setup = undefined;
      throw err;
    });
    return this.#setup;
  }

  async list(owner: string | undefined): Promise<StoredThread[]> {
    await this.ready();
    const { rows } = await this.#pool.query<{
      thread_id: string;
      owner: string;
      title: string | null;
      updated_at: Date;
      run_state: RunState;
    }>(
      `SELECT t.thread_id, t.owner, t.title, t.updated_at, t.run_state FROM textide_threads t
       WHERE ($1::text IS NULL OR t.owner = $1)
         AND EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = t.thread_id)
       ORDER BY t.updated_at DESC, t.thread_id`,
      [owner ?? null],
    );
    return rows.map((r) => ({
      threadId: r.thread_id,
      owner: r.owner,
      title: r.title ?? undefined,
      updatedAt: r.updated_at.toISOString(),
      state: r.run_state,
    }));
  }

  async ownerOf(threadId: string): Promise<string | undefined> {
    await this.ready();
    const { rows } = await this.#pool.query<{ owner: string }>(
      "SELECT owner FROM textide_threads WHERE thread_id = $1",
      [threadId],
    );
    return rows[0]?.owner;
  }

  async claim(threadId: string, owner: string, title?: string): Promise<boolean> {
    await this.ready();
    // The insert decides (the primary key serialises racing claims); a separate read, with a fresh
    // snapshot under READ COMMITTED, then sees whichever claim won.
    await this.#pool.query(
      "INSERT INTO textide_threads (thread_id, owner, title) VALUES ($1, $2, $3) ON CONFLICT (thread_id) DO NOTHING",
      [threadId, owner, title ?? null],
    );
    return (await this.ownerOf(threadId)) === owner;
  }

  async setTitle(threadId: string, title: string): Promise<void> {
    await this.ready();
    await this.#pool.query("UPDATE textide_threads SET title = $2 WHERE thread_id = $1 AND title IS NULL", [
      threadId,
      title,
    ]);
  }

  async markRun(threadId: string, state: RunState, instanceId: string): Promise<void> {
    await this.ready();
    await this.#pool.query(
      state === "running"
        ? `UPDATE textide_threads SET run_state = $2, instance_id = $3, updated_at = now() WHERE thread_id = $1`
        : `UPDATE textide_threads SET run_state = $2, updated_at = now()
           WHERE thread_id = $1 AND instance_id IS NOT DISTINCT FROM $3`,
      [threadId, state, instanceId],
    );
  }

  async markInterrupted(instanceId: string): Promise<string[]> {
    await this.ready();
    const { rows } = await this.#pool.query<{ thread_id: string }>(
      `UPDATE textide_threads SET run_state = 'interrupted'
       WHERE run_state = 'running' AND instance_id = $1 RETURNING thread_id`,
      [instanceId],
    );
    return rows.map((r) => r.thread_id);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      // Instances starting together would race on CREATE TABLE; the lock makes them take turns.
      await client.query("SELECT pg_advisory_lock($1)", [SETUP_LOCK]);
      try {
        await this.checkpointer.setup();
        await this.#migrateMetadata(client);
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [SETUP_LOCK]).catch(() => undefined);
      }
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A connection that failed is dropped from the pool rather than handed to the next request.
      client.release(broken);
    }
  }

  async #migrateMetadata(client: pg.PoolClient): Promise<void> {
    await client.query(
      "CREATE TABLE IF NOT EXISTS textide_threads_schema (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)",
    );
    const { rows } = await client.query<{ version: number }>(
      "SELECT COALESCE(MAX(version), 0)::int AS version FROM textide_threads_schema",
    );
    const current = rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `The thread metadata schema is version ${current}, newer than this build supports (${MIGRATIONS.length}). Upgrade textide.`,
      );
    }
    for (const [offset, sql] of MIGRATIONS.slice(current).entries()) {
      await client.query("BEGIN");
      await client.query(sql);
      await client.query("INSERT INTO textide_threads_schema (version, applied_at) VALUES ($1, now())", [
        current + offset + 1,
      ]);
      await client.query("COMMIT");
    }
  }
}
