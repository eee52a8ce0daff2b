import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { StatementType, type DuckDBConnection, type Json } from "@duckdb/node-api";
import { commitWrite, isFsError, type PathPolicy } from "@textide/shared/node";
import { ExecError, isExecError } from "../exec/errors.js";
import type { RunOutcome, WrittenFile } from "../exec/protocol.js";
import { mimeOf } from "../fs/mime.js";
import type { Database, Databases } from "./databases.js";
import { SQL_LIMITS } from "./limits.js";
import { sqlString } from "./literals.js";
import type { PlannedOutput, Rewritten, Staging } from "./staging.js";
import { jsonValue } from "./values.js";

/** What the tool sends the worker, as the `code` of a pool run. */
export interface SqlJob {
  sql: string;
  maxRows: number;
}

/** The worker's answer, as the run's `resultJson`. */
export interface SqlResult {
  columns: { name: string; type: string }[];
  rows: Json[][];
  rowCount: number;
  truncated: boolean;
}

/**
 * Statements a query may run. Reading, computing, in-memory tables and COPY are in; everything that
 * reaches outside the query's own in-memory database (ATTACH, INSTALL/LOAD, SET, EXPORT, PRAGMA,
 * PREPARE/EXECUTE, which could run what was not checked here) is out. The configuration lock and
 * DuckDB's file access rules stop the same things again; this list names them to the model.
 */
const ALLOWED = new Set<number>([
  StatementType.SELECT,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.EXPLAIN,
  StatementType.CREATE,
  StatementType.CREATE_FUNC,
  StatementType.DROP,
  StatementType.ALTER,
  StatementType.TRANSACTION,
  StatementType.COPY,
  StatementType.CALL,
  StatementType.MERGE_INTO,
]);

const STATEMENT_NAMES = Object.fromEntries(Object.entries(StatementType).map(([k, v]) => [v, k])) as Record<
  number,
  string
>;

export interface EngineDeps {
  policy: PathPolicy;
  staging: Staging;
  databases: Databases;
}

/** Runs one SQL job in a database of its own (see `Databases`); every failure becomes an outcome. */
export async function runSql(
  job: SqlJob,
  req: { timeoutMs: number; memoryMb: number },
  deps: EngineDeps,
): Promise<{ outcome: RunOutcome; recycle: boolean }> {
  const started = performance.now();
  let rewritten: Rewritten | undefined;
  let database: Database | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let outputs: WrittenFile[] = [];
  let result: SqlResult | undefined;
  let error: RunOutcome["error"];
  let reusable = false;
  try {
    database = await deps.databases.take(req.memoryMb);
    const conn = database.conn;
    timer = setTimeout(() => {
      timedOut = true;
      conn.interrupt();
    }, req.timeoutMs);
    rewritten = await deps.staging.rewrite(job.sql, async (from, dest) => {
      await conn.run(`COPY (SELECT * FROM ${from}) TO ${sqlString(dest)} (FORMAT parquet)`);
    });
    // An interrupted conversion falls back to the CSV: the interrupt was spent, so stop here.
    if (timedOut) throw new ExecError("timeout", "interrupted while preparing the files");
    if (rewritten.outputs.length > SQL_LIMITS.maxOutputs) {
      throw new ExecError("limit", `At most ${SQL_LIMITS.maxOutputs} COPY … TO files per query.`);
    }
    let readOnly;
    ({ result, readOnly } = await execute(conn, rewritten.sql, job.maxRows));
    outputs = await commitOutputs(rewritten.outputs, deps.policy);
    reusable = readOnly && !timedOut;
  } catch (err) {
    error = classify(err, {
      timedOut,
      timeoutMs: req.timeoutMs,
      memoryMb: req.memoryMb,
      names: rewritten?.names,
      scratch: deps.staging.scratch,
    });
  } finally {
    clearTimeout(timer);
    if (rewritten) deps.staging.discard(rewritten.outputs);
    deps.databases.release(database, req.memoryMb, reusable);
  }
  const outcome: RunOutcome = {
    ok: error === undefined,
    ...(result ? { resultJson: JSON.stringify(result) } : {}),
    logs: "",
    logsTruncated: false,
    outputs,
    ...(error ? { error } : {}),
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    timings: { isolateMs: 0, hostMs: 0 },
  };
  return { outcome, recycle: error?.kind === "memory" };
}

/** Statements after which the database is as it was (so the next query may use it). */
const LEAVES_NO_TRACE = new Set<number>([StatementType.SELECT, StatementType.COPY]);

/** Runs the statements; `readOnly` when all of them were SELECT or COPY. */
async function execute(
  conn: DuckDBConnection,
  sql: string,
  maxRows: number,
): Promise<{ result: SqlResult; readOnly: boolean }> {
  const statements = await conn.extractStatements(sql);
  if (statements.count === 0) throw new ExecError("syntax", "The SQL holds no statement.");
  let readOnly = true;
  for (let i = 0; i < statements.count; i++) {
    const prepared = await statements.prepare(i);
    const type = prepared.statementType;
    if (!LEAVES_NO_TRACE.has(type)) readOnly = false;
    if (!ALLOWED.has(type)) {
      throw new ExecError(
        "policy",
        `${STATEMENT_NAMES[type] ?? "This"} statements are not allowed in sql_query (statement ${i + 1}). ` +
          "Use SELECT, CREATE TABLE/VIEW, INSERT/UPDATE/DELETE on in-memory tables, and COPY … TO 'generated_assets/…'.",
      );
    }
    if (i < statements.count - 1) {
      await prepared.run();
      continue;
    }
    const stream = await prepared.stream();
    const names = stream.columnNames();
    const types = stream.columnTypes();
    const rows: Json[][] = [];
    let bytes = 0;
    let truncated = false;
    read: for (let chunk = await stream.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await stream.fetchChunk()) {
      for (const row of chunk.convertRows(jsonValue)) {
        const size = JSON.stringify(row).length + 1;
        if (rows.length >= maxRows || bytes + size > SQL_LIMITS.maxRowBytes) {
          truncated = true;
          break read;
        }
        rows.push(row);
        bytes += size;
      }
    }
    const result = {
      columns: names.map((name, k) => ({ name, type: types[k]!.toString() })),
      rows,
      rowCount: rows.length,
      truncated,
    };
    return { result, readOnly };
  }
  throw new ExecError("syntax", "The SQL holds no statement.");
}

/** Moves each COPY output from scratch into generated_assets, atomically, through checked descriptors. */
async function commitOutputs(planned: readonly PlannedOutput[], policy: PathPolicy): Promise<WrittenFile[]> {
  const written: WrittenFile[] = [];
  for (const o of planned) {
    let stats;
    try {
      stats = lstatSync(o.scratch);
    } catch {
      continue; // the statement naming it did not write (e.g. a COPY inside a branch never taken)
    }
    if (!stats.isFile()) {
      throw new ExecError(
        "policy",
        `COPY to ${o.display} made a folder (PARTITION_BY or PER_THREAD_OUTPUT); sql_query writes single files only.`,
      );
    }
    if (stats.size > SQL_LIMITS.maxOutputBytes) {
      throw new ExecError(
        "limit",
        `${o.display} would be ${stats.size} bytes; one COPY output may be at most ${SQL_LIMITS.maxOutputBytes / 1048576} MB. Filter or aggregate first, or write .parquet (smaller).`,
      );
    }
    const data = readFileSync(o.scratch);
    const entry = await policy
      .withParent(o.display, "write", { createParents: true }, async (target) => {
        await commitWrite(target, data);
        return target;
      })
      .catch((err: unknown) => {
        throw isFsError(err) ? new ExecError("policy", err.message) : err;
      });
    written.push({
      path: entry.display,
      bytes: data.byteLength,
      mime: mimeOf(entry.name),
      sha256: createHash("sha256").update(data).digest("hex"),
    });
  }
  return written;
}

function classify(
  err: unknown,
  s: {
    timedOut: boolean;
    timeoutMs: number;
    memoryMb: number;
    names: Map<string, string> | undefined;
    scratch: string;
  },
): NonNullable<RunOutcome["error"]> {
  if (isExecError(err) && !s.timedOut) return { kind: err.kind, message: err.message };
  let message = (err instanceof Error ? err.message : String(err)).replace(/^Failed to extract statements: /, "");
  // The user's own paths, never the scratch copies, in what the model reads.
  for (const [scratch, original] of s.names ?? []) message = message.replaceAll(scratch, original);
  // DuckDB quotes the (rewritten) SQL around the error, cut at a width: a scratch path may survive
  // the replacement above half-cut, and the caret points into text the model never wrote.
  if (message.includes(s.scratch)) message = message.replace(/\n+LINE \d+:[\s\S]*$/, "").replaceAll(s.scratch, "…");
  if (s.timedOut || /^INTERRUPT Error/.test(message)) {
    return {
      kind: "timeout",
      message: `The query was stopped after ${s.timeoutMs} ms. Filter earlier, aggregate, add LIMIT, or avoid cross joins and unbounded recursion.`,
    };
  }
  if (/^Out of Memory Error/.test(message)) {
    return {
      kind: "memory",
      message: `The query needed more than the ${s.memoryMb} MB memory limit. Aggregate or filter before joining, select fewer columns, or add LIMIT. (${firstLine(message)})`,
    };
  }
  if (/^Parser Error/.test(message)) return { kind: "syntax", message: `${message} (DuckDB SQL dialect)` };
  if (/^Permission Error/.test(message)) {
    return {
      kind: "policy",
      message: `${firstLine(message)}. sql_query reads only workspace files named by their path in single quotes ('data/x.csv', 'generated_assets/y.parquet'); globs, URLs and other paths are not available.`,
    };
  }
  if (/No files found that match the pattern/.test(message)) {
    return {
      kind: "runtime",
      message: `${firstLine(message)}. Name each workspace file by its exact path in single quotes (globs are not supported); find paths with fs_search_files.`,
    };
  }
  return { kind: "runtime", message };
}

const firstLine = (m: string) => m.split("\n")[0]!.replace(/\.$/, "");
