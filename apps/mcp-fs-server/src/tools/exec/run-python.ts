import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/server";
import { runPythonInput, runPythonOutput, TOOL } from "@textide/shared";
import { FsError } from "@textide/shared/node";
import { PY_LIMITS } from "../../exec-python/limits.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { describeRun, runOutput } from "./run-result.js";
import { callerUser } from "../../transports/bearer-auth.js";

const DESCRIPTION = `Run Python 3 in a secure sandbox to analyse and chart the workspace's data with pandas, numpy and matplotlib, like a notebook cell. \
Prefer it for pandas-style work (group by, pivot, merge, statistics) and for matplotlib charts; exec_run_js is the lighter choice for small JSON transforms and Vega-Lite charts. \
Installed: pandas, numpy, matplotlib (Agg backend, no display), openpyxl (for .xlsx); pd, np and plt are already imported. No pip, no network, no other modules beyond the standard library. \
The working directory is the workspace: read project files by their workspace path ("data/planets.xlsx", read-only) and write files only under "generated_assets/" (the one writable folder, ${PY_LIMITS.maxFileMb} MB per file, ${PY_LIMITS.maxRunMb} MB per run: a run that writes more is stopped with a limit error). \
Every file written there is listed in outputs and opens for the user; PNG/SVG charts also come back as images. print() goes to logs (${PY_LIMITS.maxLogBytes / 1024} KB); the value of a final expression statement is the result (JSON where possible, else its repr; ≤ ${PY_LIMITS.maxResultBytes / 1024} KB). \
Each call starts fresh: no variables or files in /tmp survive between calls. \
Example — pie chart of the five largest planets:
df = pd.read_excel("data/planets.xlsx")
top = df.nlargest(5, "Diameter (km)")
fig, ax = plt.subplots(figsize=(6, 6))
ax.pie(top["Diameter (km)"], labels=top["Planet"], autopct="%1.0f%%")
ax.set_title("Largest planets by diameter")
fig.savefig("generated_assets/largest-planets-pie.png", dpi=100, bbox_inches="tight")
top["Planet"].tolist()
Look at a table's columns first (df.columns.tolist(), df.head()) when you do not know them; use fs_search_files to find files. \
Limits: timeoutMs default ${PY_LIMITS.defaultTimeoutMs} (max ${PY_LIMITS.maxTimeoutMs}), memoryMb ${PY_LIMITS.defaultMemoryMb} (max ${PY_LIMITS.maxMemoryMb}), 64 processes, 256 open files. \
A failed run returns error.kind (syntax; runtime: an exception, with the traceback of your code; timeout; memory: MemoryError or killed; policy: a path outside the sandbox; limit: a file or the result too large) with the line of your code.`;

export function registerRunPython(
  server: McpServer,
  ctx: ToolContext & { python: NonNullable<ToolContext["python"]> },
): void {
  // One per McpServer (a stdio connection or an HTTP session): the caller whose runs take turns.
  const connection = randomUUID();
  defineTool(
    server,
    ctx,
    TOOL.runPython,
    {
      title: "Run Python (sandboxed)",
      description: DESCRIPTION,
      input: runPythonInput,
      output: runPythonOutput,
      // Writes only under generated_assets; the project is read-only to it.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async (args, req, correlationId) => {
      // A call that arrives before the sandbox check has finished waits for it.
      const unavailable = await ctx.python.unavailable;
      if (unavailable) {
        throw new FsError(
          "unavailable",
          `exec_run_python cannot run on this server: ${unavailable}. Use exec_run_js or sql_query instead.`,
        );
      }
      const timeoutMs = args.timeoutMs ?? ctx.python.defaultTimeoutMs;
      const caller = req.sessionId ? `session:${req.sessionId}` : `connection:${connection}`;
      const outcome = await ctx.python.pool.run(
        { code: args.code, timeoutMs, memoryMb: args.memoryMb },
        req.mcpReq.signal,
        caller,
      );
      await ctx.python.audit
        .append({
          correlationId,
          caller,
          user: callerUser(req),
          language: "python",
          code: args.code,
          timeoutMs,
          memoryMb: args.memoryMb,
          sandbox: "bubblewrap",
          outcome,
        })
        .catch((err: unknown) => ctx.log.error({ err, correlationId }, "exec audit log write failed"));
      const structured = runOutput(outcome);
      return {
        structured,
        text: describeRun(structured, outcome.resultJson, "Ran without a final value."),
        extra: outcome.images.map((img) => ({ type: "image" as const, ...img })),
        isError: !outcome.ok,
      };
    },
  );
}
