import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { SQL_LIMITS } from "./limits.js";
import { sqlString } from "./literals.js";

/** A locked-down in-memory DuckDB database and a fresh connection to it for one query. */
export interface Database {
  db: DuckDBInstance;
  conn: DuckDBConnection;
  memoryMb: number;
}

interface Instance {
  db: DuckDBInstance;
  memoryMb: number;
}

/**
 * No query sees what another one made. A database is reused only after queries that cannot have
 * changed it (nothing but SELECT and COPY … TO ran, and without error: the engine decides); after
 * anything else it is closed and a new one is made in the background, off the path of the next call.
 * Making one costs tens of milliseconds, and over 100 ms on a busy machine. Settings are global to
 * the database and locked, and connection state (prepared statements, the random seed, temporary
 * tables) goes with the connection, which is new for every query.
 */
export class Databases {
  private next: Promise<Instance> | undefined;

  constructor(private readonly scratch: string) {}

  /** A database for one query, with a new connection; hand it back to `release`. */
  async take(memoryMb: number): Promise<Database> {
    const ready = this.next;
    this.next = undefined;
    let instance = ready ? await ready.catch(() => undefined) : undefined;
    if (instance && instance.memoryMb !== memoryMb) {
      instance.db.closeSync();
      instance = undefined;
    }
    instance ??= await open(this.scratch, memoryMb);
    return { ...instance, conn: await instance.db.connect() };
  }

  /** Ends the query's connection; keeps its database when `reusable`, else replaces it after this turn. */
  release(used: Database | undefined, memoryMb: number, reusable: boolean): void {
    used?.conn.closeSync();
    if (used && reusable && !this.next) {
      this.next = Promise.resolve({ db: used.db, memoryMb: used.memoryMb });
      return;
    }
    // After the current turn, so the reply goes out first.
    setImmediate(() => {
      used?.db.closeSync();
      this.prepare(memoryMb);
    });
  }

  /** Starts making the next database if none is ready or on the way. */
  prepare(memoryMb: number): void {
    if (this.next) return;
    this.next = open(this.scratch, memoryMb);
    this.next.catch(() => undefined);
  }
}

async function open(scratch: string, memoryMb: number): Promise<Instance> {
  const db = await DuckDBInstance.create(":memory:", {
    threads: String(SQL_LIMITS.threads),
    memory_limit: `${memoryMb}MB`,
    // `~` means the scratch folder, and nothing spills to disk.
    home_directory: scratch,
    temp_directory: "",
    autoload_known_extensions: "false",
    autoinstall_known_extensions: "false",
    allow_community_extensions: "false",
  });
  const conn = await db.connect();
  try {
    // File access only inside the scratch folder (never the workspace), then the configuration locked
    // so that SQL cannot undo any of it.
    for (const sql of [
      `SET allowed_directories = [${sqlString(`${scratch}/`)}]`,
      "SET enable_external_access = false",
      "SET lock_configuration = true",
    ]) {
      await conn.run(sql);
    }
  } catch (err) {
    db.closeSync();
    throw err;
  } finally {
    conn.closeSync();
  }
  return { db, memoryMb };
}
