import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ExecPool } from "../exec/pool.js";
import type { SandboxMode } from "../exec/sandbox-command.js";
import type { Logger } from "../log.js";

/** The compiled worker beside this module; from sources (tests via vitest) the built one in dist/. */
const WORKER_PATH = [new URL("./worker.js", import.meta.url), new URL("../../dist/sql/worker.js", import.meta.url)]
  .map((u) => fileURLToPath(u))
  .find((p) => existsSync(p))!;

/**
 * sql_query's DuckDB workers, supervised by the same pool as exec_run_js's runners (warm start,
 * bubblewrap, a hard kill after the deadline, respawn after a crash): a crash inside DuckDB takes
 * down one worker, never the MCP server. Two workers, so one runaway query does not block the next.
 */
export function createSqlPool(opts: {
  projectRoot: string;
  assetsRoot: string;
  sandbox: SandboxMode;
  log: Logger;
}): ExecPool {
  return new ExecPool({
    ...opts,
    size: 2,
    runnerPath: WORKER_PATH,
    names: {
      runner: "sql worker",
      unsandboxed: "bubblewrap (bwrap) is not available: sql_query's DuckDB workers run without an OS-level sandbox",
    },
  });
}
