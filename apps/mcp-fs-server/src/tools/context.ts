import type { PathPolicy } from "@textide/shared/node";
import type { AuditLog } from "../exec/audit.js";
import type { ExecPool } from "../exec/pool.js";
import type { PythonPool } from "../exec-python/pool.js";
import type { Logger } from "../log.js";
import type { IdeClient } from "./system/ide-client.js";

/** What every tool handler receives; built once per server instance. */
export interface ToolContext {
  policy: PathPolicy;
  log: Logger;
  ide: IdeClient;
  /** The sandbox runner pool and its audit log; absent when exec is disabled. */
  exec?: { pool: ExecPool; audit: AuditLog; defaultTimeoutMs: number };
  /** The warm Python sandboxes; absent when exec is disabled or Python cannot run sandboxed here. */
  python?: {
    pool: PythonPool;
    audit: AuditLog;
    defaultTimeoutMs: number;
    /** Settles once the sandbox has been tried: why Python cannot run here, or undefined when it can. */
    unavailable: Promise<string | undefined>;
    /** Set when that try failed: servers made afterwards (new HTTP sessions) leave the tool out. */
    off?: string;
  };
  /** sql_query's DuckDB workers and its statement timeout; absent when the tool is left out. */
  sql?: { pool: ExecPool; timeoutMs: number };
}
