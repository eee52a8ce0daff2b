import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/server";
import { runJsInput, runJsOutput, TOOL } from "@textide/shared";
import { EXEC_LIMITS } from "../../exec/limits.js";
import type { ExecPool } from "../../exec/pool.js";
import type { AuditLog } from "../../exec/audit.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { describeRun, runOutput } from "./run-result.js";
import { callerUser } from "../../transports/bearer-auth.js";

const DESCRIPTION = `Run JavaScript in a secure sandbox to explore, compute and chart the workspace's data, like a notebook cell. \
\`code\` is the body of an async function: \`await\` the API below and \`return\` a JSON-serialisable value (≤ ${EXEC_LIMITS.maxResultBytes / 1024} KB). \
There is no require/import, process, network or file system beyond this API (all functions are async):
- readTable(path, {sheet?}) → array of row objects, numbers typed, from .csv .tsv .xlsx .json ("data/planets.xlsx"; sheet by name or 1-based index)
- sheets(path) → a workbook's sheet names in order ([] for other tables)
- readText(path) → string; listFiles(dir?) → workspace paths of the files under dir
- writeFile(name, content) → writes generated_assets/<name> (.csv .tsv .json .txt .md .svg .png), returns its path
- chart(vegaLiteSpec, name, {format: "png"|"svg"|"both"}) → renders Vega-Lite (inline data.values only) to generated_assets/<name>.png/.svg, returns {png, svg, width, height}
- console.log/info/warn/error → captured logs (${EXEC_LIMITS.maxLogBytes / 1024} KB)
Example — pie chart of the five largest planets:
const rows = await readTable("data/planets.xlsx");
const top = rows.sort((a, b) => b["Diameter (km)"] - a["Diameter (km)"]).slice(0, 5);
const out = await chart({
  title: "Largest planets by diameter",
  data: { values: top },
  mark: { type: "arc", tooltip: true },
  encoding: { theta: { field: "Diameter (km)", type: "quantitative" }, color: { field: "Planet", type: "nominal" } }
}, "largest-planets-pie", { format: "png" });
return { chart: out.png, planets: top.map((r) => r.Planet) };
Use fs_search_files first when you do not know a file's path, and look at a table's columns (return Object.keys(rows[0])) before charting. \
Limits: timeoutMs default ${EXEC_LIMITS.defaultTimeoutMs} (max ${EXEC_LIMITS.maxTimeoutMs}), memoryMb ${EXEC_LIMITS.defaultMemoryMb} (max ${EXEC_LIMITS.maxMemoryMb}), ${EXEC_LIMITS.maxFilesPerRun} files and ${EXEC_LIMITS.maxBytesPerFile / 1048576} MB per file per run; project files are read-only. \
Several runs go side by side, each in its own sandbox; when all are busy a run waits its turn (queueMs in the result). \
A failed run returns error.kind (syntax, runtime, timeout, memory, policy: a path outside the roots or a forbidden extension or a chart data.url; limit: a size cap) with a message and the line of your code.`;

export function registerRunJs(
  server: McpServer,
  ctx: ToolContext & { exec: { pool: ExecPool; audit: AuditLog } },
): void {
  // Called once per McpServer, i.e. per stdio connection or 2025 HTTP session (and per request of
  // the stateless 2026 HTTP protocol): the caller whose runs take turns with other callers' runs.
  const connection = randomUUID();
  defineTool(
    server,
    ctx,
    TOOL.runJs,
    {
      title: "Run JavaScript (sandboxed)",
      description: DESCRIPTION,
      input: runJsInput,
      output: runJsOutput,
      // Writes only new files under generated_assets; a rerun overwrites the same names.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async (args, req, correlationId, progress) => {
      const timeoutMs = args.timeoutMs ?? ctx.exec.defaultTimeoutMs;
      const caller = req.sessionId ? `session:${req.sessionId}` : `connection:${connection}`;
      // Stages, not a fraction: how long user code runs is unknown. Each report counts one step up, and
      // all are sent before the result.
      let step = 0;
      let reported = progress(++step, undefined, "queued: waiting for a free sandbox", true);
      const outcome = await ctx.exec.pool.run(
        { code: args.code, timeoutMs, memoryMb: args.memoryMb, correlationId },
        req.mcpReq.signal,
        caller,
        (s) => {
          const message = s.stage === "running" ? "running" : `rendering chart ${s.chart}`;
          reported = reported.then(() => progress(++step, undefined, message, true));
        },
      );
      await reported;
      await ctx.exec.audit
        .append({
          correlationId,
          caller,
          user: callerUser(req),
          code: args.code,
          timeoutMs,
          memoryMb: args.memoryMb,
          sandbox: ctx.exec.pool.sandbox,
          outcome,
        })
        .catch((err: unknown) => ctx.log.error({ err, correlationId }, "exec audit log write failed"));
      const structured = runOutput(outcome);
      return {
        structured,
        text: describeRun(structured, outcome.resultJson, "Ran without a return value."),
        isError: !outcome.ok,
      };
    },
  );
}
