import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { NodeSqliteSaver } from "./sqlite-saver.js";
import type { RunState, StoredThread, ThreadStore } from "./thread-store.js";

/** `MIGRATIONS[n]` takes the metadata from version `n` to `n + 1`. Never edit a shipped entry. */
const MIGRATIONS: readonly string[] = [
  // Threads written before this table existed belong to the single local user; their titles are filled in
  // on first listing (reading each history once), since SQL cannot decode the serialised messages.
  `
  CREATE TABLE textide_threads (
    thread_id   TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    title       TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    run_state   TEXT NOT NULL DEFAULT 'idle' CHECK (run_state IN ('running', 'idle', 'interrupted')),
    instance_id TEXT
  );
  CREATE INDEX textide_threads_owner ON textide_threads (owner, updated_at DESC);
  INSERT INTO textide_threads (thread_id, owner, title, created_at, updated_at, run_state)
    SELECT thread_id, 'local', NULL, MIN(created_at), MAX(created_at), 'idle' FROM checkpoints GROUP BY thread_id;
  `,
];

const LIST_COLUMNS = "t.thread_id, t.owner, t.title, t.updated_at, t.run_state";
/** Only threads with a checkpoint: a claim whose run never started leaves nothing to show. */
const HAS_CHECKPOINT = "EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = t.thread_id)";

/** The embedded store: checkpoints ({@link NodeSqliteSaver}) and the metadata table in one SQLite file. */
export class SqliteThreadStore implements ThreadStore {
  readonly backend = "sqlite";
  readonly checkpointer: NodeSqliteSaver;
  readonly #db: DatabaseSync;

  constructor(checkpointer: NodeSqliteSaver) {
    this.checkpointer = checkpointer;
    this.#db = checkpointer.db;
    migrate(this.#db);
  }

  /** Opens (creating or migrating) `file`, e.g. `<dataDir>/threads.sqlite`. */
  static open(file: string): SqliteThreadStore {
    const saver = NodeSqliteSaver.open(file);
    try {
      return new SqliteThreadStore(saver);
    } catch (err) {
      saver.close();
      throw err;
    }
  }

  list(owner: string | undefined): Promise<StoredThread[]> {
    const order = "ORDER BY t.updated_at DESC, t.thread_id";
    const rows =
      owner === undefined
        ? this.#db.prepare(`SELECT ${LIST_COLUMNS} FROM textide_threads t WHERE ${HAS_CHECKPOINT} ${order}`).all()
        : this.#db
            .prepare(`SELECT ${LIST_COLUMNS} FROM textide_threads t WHERE t.owner = ? AND ${HAS_CHECKPOINT} ${order}`)
            .all(owner);
    return Promise.resolve(
      rows.map((r) => ({
        threadId: str(r.thread_id),
        owner: str(r.owner),
        title: typeof r.title === "string" ? r.title : undefined,
        updatedAt: str(r.updated_at),
        state: str(r.run_state) as RunState,
      })),
    );
  }

  ownerOf(threadId: string): Promise<string | undefined> {
    const row = this.#db.prepare("SELECT owner FROM textide_threads WHERE thread_id = ?").get(threadId);
    return Promise.resolve(row === undefined ? undefined : str(row.owner));
  }

  claim(threadId: string, owner: string, title?: string): Promise<boolean> {
    const now = new Date().toISOString();
    this.#db
      .prepare(
        `INSERT INTO textide_threads (thread_id, owner, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (thread_id) DO NOTHING`,
      )
      .run(threadId, owner, title ?? null, now, now);
    return this.ownerOf(threadId).then((o) => o === owner);
  }

  setTitle(threadId: string, title: string): Promise<void> {
    this.#db.prepare("UPDATE textide_threads SET title = ? WHERE thread_id = ? AND title IS NULL").run(title, threadId);
    return Promise.resolve();
  }

  markRun(threadId: string, state: RunState, instanceId: string): Promise<void> {
    const now = new Date().toISOString();
    if (state === "running") {
      this.#db
        .prepare(
          "UPDATE textide_threads SET run_state = 'running', instance_id = ?, updated_at = ? WHERE thread_id = ?",
        )
        .run(instanceId, now, threadId);
    } else {
      this.#db
        .prepare("UPDATE textide_threads SET run_state = ?, updated_at = ? WHERE thread_id = ? AND instance_id IS ?")
        .run(state, now, threadId, instanceId);
    }
    return Promise.resolve();
  }

  markInterrupted(instanceId: string): Promise<string[]> {
    const rows = this.#db
      .prepare(
        `UPDATE textide_threads SET run_state = 'interrupted'
         WHERE run_state = 'running' AND instance_id = ? RETURNING thread_id`,
      )
      .all(instanceId);
    return Promise.resolve(rows.map((r) => str(r.thread_id)));
  }

  close(): Promise<void> {
    this.checkpointer.close();
    return Promise.resolve();
  }
}

/** Creates or upgrades the metadata table in one IMMEDIATE transaction (two processes opening at once serialise). */
function migrate(db: DatabaseSync): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(
      "CREATE TABLE IF NOT EXISTS textide_threads_schema (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    const row = db.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM textide_threads_schema").get();
    const current = Number(row?.version ?? 0);
    if (current > MIGRATIONS.length) {
      throw new Error(
        `The thread metadata schema is version ${current}, newer than this build supports (${MIGRATIONS.length}). ` +
          "Upgrade textide or point it at a different data directory.",
      );
    }
    const record = db.prepare("INSERT INTO textide_threads_schema (version, applied_at) VALUES (?, ?)");
    MIGRATIONS.slice(current).forEach((sql, offset) => {
      db.exec(sql);
      record.run(current + offset + 1, new Date().toISOString());
    });
    db.exec("COMMIT");
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  }
}

function str(value: SQLOutputValue | undefined): string {
  if (typeof value !== "string") throw new Error("Corrupt thread metadata row: expected text.");
  return value;
}
