import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/server";
import { SQL_MAX_ROWS, sqlQueryInput, sqlQueryOutput, TOOL, type SqlQueryOutput } from "@textide/shared";
import type { ExecPool } from "../../exec/pool.js";
import type { SqlJob, SqlResult } from "../../sql/engine.js";
import { SQL_LIMITS } from "../../sql/limits.js";
import { markdownTable, rowCountLine } from "../../sql/markdown.js";
import type { ToolContext } from "../context.js";
import { formatBytes } from "../fs/format.js";
import { defineTool } from "../result.js";
import { callerUser } from "../../transports/bearer-auth.js";

const description = (
  timeoutMs: number,
) => `Query workspace files with SQL (DuckDB dialect). Use it for filters, counts, sums, averages, medians, \
group-bys, top-N, distinct values, joins of two files, and format conversion — it is much faster and more exact than \
reading rows with exec_run_js. A file is a table named by its workspace path in single quotes:
  SELECT Type, count(*) AS planets, avg("Diameter (km)") AS mean_km FROM 'data/planets.xlsx' GROUP BY Type ORDER BY planets DESC
  SELECT m.Moon, m.Planet, p.Type FROM 'data/moons/major-moons.tsv' m JOIN 'data/planets.xlsx' p ON m.Planet = p.Planet
Readable: .csv .tsv .json .jsonl/.ndjson .parquet and .xlsx (first sheet; another sheet after '#': 'data/planets.xlsx#Dwarf planets' or '#2'). \
Functions taking a path work too: read_csv('data/x.csv', delim=';'). Paths are relative to project_root; \
'generated_assets/…' reads earlier outputs. Globs, URLs and files outside the workspace are not available. \
Column names with spaces or symbols need double quotes: "Diameter (km)". Look at a file's columns first with DESCRIBE SELECT * FROM 'data/x.csv'.
Write a result file with COPY (SELECT …) TO 'generated_assets/name.csv' (.csv, .json, .parquet); it is written atomically, \
listed in outputs and opened in the IDE. Several statements separated by ';' run in order (CREATE TABLE t AS …; SELECT … FROM t); \
the last one's rows are returned. Each call starts with an empty in-memory database: nothing persists between calls.
Results: columns [{name, type}], rows as arrays in column order, at most maxRows (default 200, max ${SQL_MAX_ROWS}) and about \
${Math.round(SQL_LIMITS.maxRowBytes / 1000)} KB; truncated=true means there were more: aggregate or add LIMIT. Integers beyond ±2^53 \
come as strings, DECIMAL as numbers, dates and timestamps as ISO 8601 strings.
Limits: ${timeoutMs / 1000} s per call, ${SQL_LIMITS.memoryMb} MB memory, ${SQL_LIMITS.threads} threads, \
files up to ${SQL_LIMITS.maxInputBytes / 1048576} MB. The project is read-only; only SELECT-style statements, in-memory \
tables and COPY are allowed (no ATTACH, INSTALL/LOAD, SET, PRAGMA, EXPORT). \
A failed call returns error.kind: syntax (fix the SQL), runtime (a missing file or column, a bad cast: read the message), \
timeout or memory (filter, aggregate or LIMIT earlier), policy (a path outside the workspace, a write outside generated_assets, \
a forbidden statement), limit (a size cap).`;

export function registerSqlQuery(
  server: McpServer,
  ctx: ToolContext & { sql: { pool: ExecPool; timeoutMs: number } },
): void {
  // Calls of one connection take turns with other connections' calls when the workers are busy.
  const connection = randomUUID();
  defineTool(
    server,
    ctx,
    TOOL.sqlQuery,
    {
      title: "SQL query over workspace files (DuckDB)",
      description: description(ctx.sql.timeoutMs),
      input: sqlQueryInput,
      output: sqlQueryOutput,
      // Reads the workspace; COPY … TO may create or replace files under generated_assets.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (args, req, correlationId) => {
      const job: SqlJob = { sql: args.sql, maxRows: args.maxRows };
      const caller = req.sessionId ? `session:${req.sessionId}` : `connection:${connection}`;
      const outcome = await ctx.sql.pool.run(
        { code: JSON.stringify(job), timeoutMs: ctx.sql.timeoutMs, memoryMb: SQL_LIMITS.memoryMb, correlationId },
        req.mcpReq.signal,
        caller,
      );
      // Queries go to the exec audit log beside the code runs; there is none when exec is turned off.
      await ctx.exec?.audit
        .append({
          correlationId,
          caller,
          user: callerUser(req),
          language: "sql",
          code: args.sql,
          timeoutMs: ctx.sql.timeoutMs,
          memoryMb: SQL_LIMITS.memoryMb,
          sandbox: ctx.sql.pool.sandbox,
          outcome,
        })
        .catch((err: unknown) => ctx.log.error({ err, correlationId }, "exec audit log write failed"));
      const result: SqlResult =
        outcome.ok && outcome.resultJson !== undefined
          ? (JSON.parse(outcome.resultJson) as SqlResult)
          : { columns: [], rows: [], rowCount: 0, truncated: false };
      const structured: SqlQueryOutput = {
        ...result,
        durationMs: outcome.durationMs,
        outputs: outcome.outputs.map(({ path, bytes, mime }) => ({ path, bytes, mime })),
        ...(outcome.error ? { error: { kind: outcome.error.kind, message: outcome.error.message } } : {}),
      };
      return { structured, text: describe(structured, result, args.maxRows), isError: !outcome.ok };
    },
  );
}

function describe(s: SqlQueryOutput, r: SqlResult, maxRows: number): string {
  if (s.error) return `${s.error.kind} error: ${s.error.message}`;
  const parts = [markdownTable(r), rowCountLine(r, maxRows)];
  if (s.outputs.length > 0)
    parts.push(`Files written:\n${s.outputs.map((o) => `- ${o.path} (${formatBytes(o.bytes)})`).join("\n")}`);
  return parts.join("\n\n");
}
