/**
 * A LangGraph checkpoint saver on Node's built-in `node:sqlite` (`DatabaseSync`), so threads survive process
 * restarts without a native add-on (`better-sqlite3` needs a compile step that npm here only runs for approved
 * packages).
 *
 * Semantics mirror the reference in-memory `MemorySaver` of `@langchain/langgraph-checkpoint`: the same configs
 * in and out of `getTuple`/`list`/`put`, parent checkpoint ids, pending writes returned in `writesSortKey` order,
 * special writes (`__error__`, `__interrupt__`, …) overwriting and regular writes not, the v<4 pending-sends
 * migration, and every value serialised through `this.serde` (`dumpsTyped`/`loadsTyped`) and stored as type + BLOB.
 * Deliberate differences are listed on {@link NodeSqliteSaver}.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from "node:sqlite";
import { isDeepStrictEqual } from "node:util";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";

/** `RunnableConfig` as the saver API uses it (taken from the base class so we need no `@langchain/core` import). */
type RunnableConfig = Parameters<BaseCheckpointSaver["getTuple"]>[0];
type Row = Record<string, SQLOutputValue>;

/** The newest schema this code knows. Bump it and append to {@link MIGRATIONS} to change the tables. */
export const CHECKPOINT_SCHEMA_VERSION = 1;

/** `MIGRATIONS[n]` takes a database from schema version `n` to `n + 1`. Never edit a shipped entry. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE checkpoints (
    thread_id            TEXT NOT NULL,
    checkpoint_ns        TEXT NOT NULL DEFAULT '',
    checkpoint_id        TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    checkpoint_type      TEXT NOT NULL,
    checkpoint           BLOB NOT NULL,
    metadata_type        TEXT NOT NULL,
    metadata             BLOB NOT NULL,
    created_at           TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
  );
  CREATE TABLE checkpoint_writes (
    thread_id     TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id       TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    channel       TEXT NOT NULL,
    type          TEXT NOT NULL,
    value         BLOB NOT NULL,
    task_path     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
  );
  `,
];

const CHECKPOINT_COLUMNS =
  "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_type, checkpoint, metadata_type, metadata";

/** One thread as the UI's thread list shows it. */
export interface ThreadSummary {
  threadId: string;
  /** `ts` of the thread's newest checkpoint (any namespace), an ISO-8601 string. */
  updatedAt: string;
  /** Checkpoints in the root namespace, i.e. the length of `graph.getStateHistory()`. */
  checkpointCount: number;
}

export interface NodeSqliteSaverOptions {
  /** Serializer for checkpoints, metadata and writes; defaults to the base class's `JsonPlusSerializer`. */
  serde?: SerializerProtocol;
  /** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. Default 5000. */
  busyTimeoutMs?: number;
}

/**
 * Checkpoint saver backed by one SQLite file through `node:sqlite`.
 *
 * Open it with {@link NodeSqliteSaver.open} and {@link NodeSqliteSaver.close} it on shutdown. All SQL is
 * synchronous (`DatabaseSync`); only (de)serialisation is async. No transaction spans an `await`, so concurrent
 * graph runs on one saver interleave safely.
 *
 * Differences from `MemorySaver`, all deliberate:
 * - `list()` `filter` compares with deep equality (as Python's savers do), so `{ parents: {} }` can match;
 *   MemorySaver's `===` only ever matches primitives. For primitive filter values the two agree.
 * - `list()` without a `thread_id` orders by thread id, then namespace, then checkpoint id descending
 *   (MemorySaver: thread insertion order). Within one thread and namespace both are newest first.
 * - `putWrites` without a `checkpoint_ns` stores the writes under `""` (the root namespace).
 * - `thread_id` may be any non-empty string: there is no prototype-pollution concern in SQL, so `"__proto__"` is fine.
 */
export class NodeSqliteSaver extends BaseCheckpointSaver {
  /** The open connection. Exposed for diagnostics and tests; do not write to the tables directly. */
  readonly db: DatabaseSync;
  #closed = false;
  readonly #statements = new Map<string, StatementSync>();

  /**
   * Wraps an open `DatabaseSync` (file or `:memory:`): sets WAL mode and a busy timeout, then creates or migrates
   * the tables. Prefer {@link NodeSqliteSaver.open}; {@link close} closes `db`.
   */
  constructor(db: DatabaseSync, options: NodeSqliteSaverOptions = {}) {
    super(options.serde);
    this.db = db;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new Error(`busyTimeoutMs must be a non-negative integer (got ${busyTimeoutMs}).`);
    }
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // WAL: readers never block the writer, and a crash mid-write leaves the last committed state intact.
    db.exec("PRAGMA journal_mode = WAL");
    // In WAL mode NORMAL is crash-safe for process crashes; only an OS crash/power loss can drop the last commits.
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db);
  }

  /** Opens (creating if needed) the SQLite file at `file`, its directory included, ready to use. */
  static open(file: string, options: NodeSqliteSaverOptions = {}): NodeSqliteSaver {
    const inMemory = file === ":memory:" || file === "";
    const path = inMemory ? file : resolve(file);
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    try {
      return new NodeSqliteSaver(db, options);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Closes the connection (idempotent). In WAL mode the last connection to close folds the `-wal` file back. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.db.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = optionalKey("thread_id", config.configurable?.thread_id);
    const checkpointNs = namespaceOf(config.configurable?.checkpoint_ns);
    const checkpointId = optionalKey("checkpoint_id", getCheckpointId(config) || undefined);
    if (threadId === undefined) return undefined;

    const row = checkpointId
      ? this.#stmt(
          `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
        ).get(threadId, checkpointNs, checkpointId)
      : this.#stmt(
          `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
           ORDER BY checkpoint_id DESC LIMIT 1`,
        ).get(threadId, checkpointNs);
    if (row === undefined) return undefined;

    const stored = readCheckpointRow(row);
    const tuple = await this.#toTuple(stored);
    // Like MemorySaver: an explicit checkpoint id hands back the caller's config, "latest" a fresh one.
    if (checkpointId) tuple.config = config;
    return tuple;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options ?? {};
    let limit = options?.limit;
    const threadId = optionalKey("thread_id", config.configurable?.thread_id || undefined);
    const rawNs: unknown = config.configurable?.checkpoint_ns;
    const checkpointNs = rawNs === undefined || rawNs === null ? undefined : namespaceOf(rawNs);
    const checkpointId = optionalKey("checkpoint_id", config.configurable?.checkpoint_id || undefined);
    const beforeId = optionalKey("before.checkpoint_id", before?.configurable?.checkpoint_id || undefined);
    const filterEntries = Object.entries(filter ?? {});

    const where: string[] = [];
    const params: SQLInputValue[] = [];
    const condition = (clause: string, value: SQLInputValue | undefined): void => {
      if (value === undefined) return;
      where.push(clause);
      params.push(value);
    };
    condition("thread_id = ?", threadId);
    condition("checkpoint_ns = ?", checkpointNs);
    condition("checkpoint_id = ?", checkpointId);
    condition("checkpoint_id < ?", beforeId);
    let sql =
      "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, metadata_type, metadata FROM checkpoints" +
      (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
      " ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC";
    // Without a metadata filter the limit can go to SQL; with one it is applied after deserialising metadata.
    if (filterEntries.length === 0 && limit !== undefined && Number.isInteger(limit) && limit >= 0) {
      sql += " LIMIT ?";
      params.push(limit);
    }
    // Read the (small) index rows up front, then load each checkpoint blob only when it is about to be yielded.
    const heads = this.#stmt(sql).all(...params);

    for (const head of heads) {
      const metadataType = text(head, "metadata_type");
      const metadata = (await this.serde.loadsTyped(metadataType, blob(head, "metadata"))) as CheckpointMetadata;
      if (filterEntries.length > 0) {
        const record = metadata as Record<string, unknown>;
        if (!filterEntries.every(([key, value]) => isDeepStrictEqual(record[key], value))) continue;
      }
      if (limit !== undefined) {
        if (limit <= 0) return;
        limit -= 1;
      }
      const row = this.#stmt(
        `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
      ).get(text(head, "thread_id"), text(head, "checkpoint_ns"), text(head, "checkpoint_id"));
      if (row === undefined) continue; // deleted since the index query (deleteThread mid-iteration)
      yield await this.#toTuple(readCheckpointRow(row), metadata);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = requiredKey(
      "thread_id",
      config.configurable?.thread_id,
      'Failed to put checkpoint: config.configurable has no "thread_id". Pass one so the checkpointer knows which ' +
        'thread to persist, e.g. graph.invoke(input, { configurable: { thread_id: "my-thread" } }).',
    );
    const checkpointNs = namespaceOf(config.configurable?.checkpoint_ns);
    const parentId = optionalKey("checkpoint_id", config.configurable?.checkpoint_id || undefined);
    const checkpointId = requiredKey(
      "checkpoint.id",
      checkpoint.id,
      "Failed to put checkpoint: checkpoint.id is empty.",
    );

    const prepared = copyCheckpoint(checkpoint);
    const [[checkpointType, checkpointBytes], [metadataType, metadataBytes]] = await Promise.all([
      this.serde.dumpsTyped(prepared),
      this.serde.dumpsTyped(metadata),
    ]);
    const createdAt =
      typeof checkpoint.ts === "string" && checkpoint.ts !== "" ? checkpoint.ts : new Date().toISOString();
    this.#stmt(
      `INSERT OR REPLACE INTO checkpoints (${CHECKPOINT_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      threadId,
      checkpointNs,
      checkpointId,
      parentId ?? null,
      checkpointType,
      checkpointBytes,
      metadataType,
      metadataBytes,
      createdAt,
    );
    return { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = requiredKey(
      "thread_id",
      config.configurable?.thread_id,
      'Failed to put writes: config.configurable has no "thread_id".',
    );
    const checkpointNs = namespaceOf(config.configurable?.checkpoint_ns);
    const checkpointId = requiredKey(
      "checkpoint_id",
      config.configurable?.checkpoint_id,
      'Failed to put writes: config.configurable has no "checkpoint_id".',
    );
    const task = requiredKey("task_id", taskId, "Failed to put writes: taskId is empty.");

    const rows = await Promise.all(
      writes.map(async ([channel, value], position) => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        const special = Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel] : undefined;
        return { channel, idx: special ?? position, type, bytes };
      }),
    );
    const columns = "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)";
    // Regular writes are kept from the first attempt (MemorySaver skips existing keys); special ones (error,
    // interrupt, resume, scheduled — negative idx) replace the previous value.
    const insertKeep = this.#stmt(
      `INSERT OR IGNORE INTO checkpoint_writes ${columns} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertReplace = this.#stmt(
      `INSERT OR REPLACE INTO checkpoint_writes ${columns} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#transaction(() => {
      for (const { channel, idx, type, bytes } of rows) {
        (idx >= 0 ? insertKeep : insertReplace).run(
          threadId,
          checkpointNs,
          checkpointId,
          task,
          idx,
          channel,
          type,
          bytes,
          taskPath ?? "",
        );
      }
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the base API is async; SQLite here is synchronous
  async deleteThread(threadId: string): Promise<void> {
    const thread = requiredKey("thread_id", threadId, "deleteThread needs a non-empty thread id.");
    this.#transaction(() => {
      this.#stmt("DELETE FROM checkpoints WHERE thread_id = ?").run(thread);
      this.#stmt("DELETE FROM checkpoint_writes WHERE thread_id = ?").run(thread);
    });
  }

  /** Every thread with at least one checkpoint, most recently updated first. */
  listThreads(options: { limit?: number } = {}): ThreadSummary[] {
    const { limit } = options;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw new Error(`listThreads limit must be a non-negative integer (got ${limit}).`);
    }
    const rows = this.#stmt(
      `SELECT thread_id,
              MAX(created_at) AS updated_at,
              SUM(CASE WHEN checkpoint_ns = '' THEN 1 ELSE 0 END) AS checkpoint_count
       FROM checkpoints
       GROUP BY thread_id
       ORDER BY updated_at DESC, thread_id
       LIMIT ?`,
    ).all(limit ?? -1);
    return rows.map((row) => ({
      threadId: text(row, "thread_id"),
      updatedAt: text(row, "updated_at"),
      checkpointCount: integer(row, "checkpoint_count"),
    }));
  }

  /** Builds the public tuple for a stored row: checkpoint (v<4 sends migrated), metadata, parent, pending writes. */
  async #toTuple(stored: StoredCheckpoint, knownMetadata?: CheckpointMetadata): Promise<CheckpointTuple> {
    const { threadId, checkpointNs, checkpointId, parentId } = stored;
    const [checkpoint, metadata, pendingWrites] = await Promise.all([
      this.serde.loadsTyped(stored.checkpointType, stored.checkpoint) as Promise<Checkpoint>,
      knownMetadata ?? (this.serde.loadsTyped(stored.metadataType, stored.metadata) as Promise<CheckpointMetadata>),
      this.#pendingWrites(threadId, checkpointNs, checkpointId),
    ]);
    if (checkpoint.v < 4 && parentId !== undefined) {
      await this.#migratePendingSends(checkpoint, threadId, checkpointNs, parentId);
    }
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId } },
      checkpoint,
      metadata,
      pendingWrites,
    };
    if (parentId !== undefined) {
      tuple.parentConfig = {
        configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: parentId },
      };
    }
    return tuple;
  }

  /** The writes stored against one checkpoint, in `writesSortKey` order (how live execution applies them). */
  async #pendingWrites(
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
    channel?: string,
  ): Promise<CheckpointPendingWrite[]> {
    const sql =
      "SELECT task_id, idx, channel, type, value, task_path FROM checkpoint_writes" +
      " WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?" +
      (channel === undefined ? "" : " AND channel = ?");
    const params: SQLInputValue[] = [threadId, checkpointNs, checkpointId];
    if (channel !== undefined) params.push(channel);
    const rows = this.#stmt(sql)
      .all(...params)
      .map((row) => ({
        key: writesSortKey(text(row, "task_path"), text(row, "task_id"), integer(row, "idx")),
        taskId: text(row, "task_id"),
        channel: text(row, "channel"),
        type: text(row, "type"),
        value: blob(row, "value"),
      }));
    rows.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(
      rows.map(async (row): Promise<CheckpointPendingWrite> => [
        row.taskId,
        row.channel,
        (await this.serde.loadsTyped(row.type, row.value)) as unknown,
      ]),
    );
  }

  /** Pre-v4 checkpoints kept pending `Send`s as writes on their parent: move them into `channel_values`. */
  async #migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    checkpointNs: string,
    parentId: string,
  ): Promise<void> {
    const sends = await this.#pendingWrites(threadId, checkpointNs, parentId, TASKS);
    const mutable = checkpoint as { channel_values?: Record<string, unknown>; channel_versions?: ChannelVersions };
    mutable.channel_values ??= {};
    mutable.channel_values[TASKS] = sends.map(([, , value]) => value);
    mutable.channel_versions ??= {};
    const versions = Object.values(mutable.channel_versions);
    mutable.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  #stmt(sql: string): StatementSync {
    if (this.#closed) throw new Error("NodeSqliteSaver is closed: open a new one with NodeSqliteSaver.open(file).");
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs synchronous `work` in one write transaction. Never pass async work: an `await` would split it. */
  #transaction(work: () => void): void {
    if (this.#closed) throw new Error("NodeSqliteSaver is closed: open a new one with NodeSqliteSaver.open(file).");
    this.db.exec("BEGIN IMMEDIATE");
    try {
      work();
      this.db.exec("COMMIT");
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw error;
    }
  }
}

interface StoredCheckpoint {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  parentId: string | undefined;
  checkpointType: string;
  checkpoint: Uint8Array;
  metadataType: string;
  metadata: Uint8Array;
}

function readCheckpointRow(row: Row): StoredCheckpoint {
  const parent = row.parent_checkpoint_id;
  return {
    threadId: text(row, "thread_id"),
    checkpointNs: text(row, "checkpoint_ns"),
    checkpointId: text(row, "checkpoint_id"),
    parentId: typeof parent === "string" ? parent : undefined,
    checkpointType: text(row, "checkpoint_type"),
    checkpoint: blob(row, "checkpoint"),
    metadataType: text(row, "metadata_type"),
    metadata: blob(row, "metadata"),
  };
}

/** Creates or upgrades the tables inside one IMMEDIATE transaction, so two processes opening at once serialise. */
function migrate(db: DatabaseSync): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(
      `CREATE TABLE IF NOT EXISTS checkpoint_schema (
         version    INTEGER PRIMARY KEY,
         applied_at TEXT NOT NULL
       )`,
    );
    const versionRow = db.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM checkpoint_schema").get();
    const current = versionRow === undefined ? 0 : integer(versionRow, "version");
    if (current > MIGRATIONS.length) {
      throw new Error(
        `Checkpoint database schema is version ${current}, newer than this build supports (${MIGRATIONS.length}). ` +
          "Upgrade textide or point it at a different checkpoint file.",
      );
    }
    const record = db.prepare("INSERT INTO checkpoint_schema (version, applied_at) VALUES (?, ?)");
    MIGRATIONS.slice(current).forEach((sql, offset) => {
      db.exec(sql);
      record.run(current + offset + 1, new Date().toISOString());
    });
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** `checkpoint_ns` from a config: absent means the root namespace `""`. */
function namespaceOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new Error(`Invalid configurable "checkpoint_ns": expected a string.`);
  return value;
}

/** A config identifier that may be absent; when present it must be a non-empty string. */
function optionalKey(field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "") {
    throw new Error(`Invalid configurable "${field}": expected a non-empty string (got ${describe(value)}).`);
  }
  return value;
}

function requiredKey(field: string, value: unknown, missingMessage: string): string {
  const key = optionalKey(field, value);
  if (key === undefined) throw new Error(missingMessage);
  return key;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (value === "") return "empty string";
  return typeof value;
}

function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new Error(`Corrupt checkpoint row: column ${column} is not text.`);
  return value;
}

function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "number") throw new Error(`Corrupt checkpoint row: column ${column} is not an integer.`);
  return value;
}

function blob(row: Row, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof Uint8Array) return value;
  // A TEXT value (e.g. a row written by hand) is still valid serialiser input.
  if (typeof value === "string") return new TextEncoder().encode(value);
  throw new Error(`Corrupt checkpoint row: column ${column} is not a blob.`);
}
