import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { SQL_LIMITS } from "./limits.js";
import { sqlString } from "./literals.js";

/** A fresh in-memory DuckDB database with its one connection, locked down. */
export interface Database {
  db: DuckDBInstance;
  conn: DuckDBConnection;
  memoryMb: number;
}

/**
 * Each query gets a database of its own, so nothing one caller creates is seen by the next. Making
 * one (and closing it) costs tens of milliseconds, more on a busy machine, so the next database is
 * made in the background after each query, off the path of the next call.
 */
export class Databases {
  private next: Promise<Database> | undefined;

  constructor(private readonly scratch: string) {}

  /** A ready database for one query; the caller hands it back to `release`. */
  async take(memoryMb: number): Promise<Database> {
    const ready = this.next;
    this.next = undefined;
    const prepared = ready ? await ready.catch(() => undefined) : undefined;
    if (prepared?.memoryMb === memoryMb) return prepared;
    if (prepared) close(prepared);
    return open(this.scratch, memoryMb);
  }

  /** Closes a used database and prepares the next one, after the current turn (the reply goes first). */
  release(used: Database | undefined, memoryMb: number): void {
    setImmediate(() => {
      if (used) close(used);
      this.prepare(memoryMb);
    });
  }

  /** Starts making the next database if none is on the way. */
  prepare(memoryMb: number): void {
    if (this.next) return;
    this.next = open(this.scratch, memoryMb);
    this.next.catch(() => undefined);
  }
}

async function open(scratch: string, memoryMb: number): Promise<Database> {
  const db = await DuckDBInstance.create(":memory:", {
    threads: String(SQL_LIMITS.threads),
    memory_limit: `${memoryMb}MB`,
    autoload_known_extensions: "false",
    autoinstall_known_extensions: "false",
    allow_community_extensions: "false",
  });
  const conn = await db.connect();
  // File access only inside the scratch folder (never the workspace), `~` inside it, no spilling to
  // disk, and the configuration locked so that SQL cannot undo any of it.
  for (const sql of [
    `SET allowed_directories = [${sqlString(`${scratch}/`)}]`,
    `SET home_directory = ${sqlString(scratch)}`,
    "SET temp_directory = ''",
    "SET enable_external_access = false",
    "SET lock_configuration = true",
  ]) {
    await conn.run(sql);
  }
  return { db, conn, memoryMb };
}

function close(d: Database): void {
  d.conn.closeSync();
  d.db.closeSync();
}
