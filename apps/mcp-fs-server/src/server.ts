import { McpServer, type McpServerFactory } from "@modelcontextprotocol/server";
import { ROOT } from "@textide/shared";
import { PathPolicy, removeStaleTemps, resolveRoots } from "@textide/shared/node";
import { AuditLog } from "./exec/audit.js";
import { probeBwrap } from "./exec/bwrap-probe.js";
import { EXEC_LIMITS } from "./exec/limits.js";
import { ExecPool } from "./exec/pool.js";
import type { SandboxMode } from "./exec/sandbox-command.js";
import { PY_LIMITS } from "./exec-python/limits.js";
import { PythonPool } from "./exec-python/pool.js";
import { pythonMissing, pythonSandboxFails } from "./exec-python/sandbox-command.js";
import { createLogger, type Logger } from "./log.js";
import { SQL_LIMITS } from "./sql/limits.js";
import { createSqlPool } from "./sql/pool.js";
import { registerPrompts } from "./prompts/index.js";
import { registerRootResources } from "./resources/roots.js";
import type { ToolContext } from "./tools/context.js";
import { registerTools } from "./tools/index.js";
import { createIdeClient, type IdeClient } from "./tools/system/ide-client.js";

export const SERVER_INFO = { name: "textide-mcp-fs-server", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Sandboxed file tools for one workspace. Paths are relative to project_root (e.g. `data/planets.xlsx`); " +
  "paths starting with `generated_assets/` address the folder where generated outputs belong. " +
  "Find files with fs_search_files, explore with fs_list_directory, read with fs_read_file (paged for large files).";

export interface FsServerOptions {
  projectRoot: string;
  assetsRoot: string;
  ideUrl?: string | undefined;
  ideToken?: string | undefined;
  logLevel?: string;
  log?: Logger;
  ide?: IdeClient;
  /** Sandboxed JavaScript (exec_run_js); omit or pass false to leave the tool out. */
  exec?:
    | {
        auditLog: string;
        sandbox: SandboxMode;
        defaultTimeoutMs?: number;
        runners?: number | undefined;
        /** exec_run_python's default time limit (PY_EXEC_TIMEOUT_SEC). */
        pythonTimeoutMs?: number | undefined;
        /** Warm Python sandboxes side by side (default 2). */
        pythonZygotes?: number;
      }
    | false;
  /** DuckDB SQL (sql_query); pass false to leave it out. By default on whenever exec is, in the same sandbox mode. */
  sql?: { sandbox: SandboxMode; timeoutMs?: number | undefined } | false;
  /**
   * Start-up work no handshake needs (the sweep for files left by interrupted writes, exec_run_python's
   * sandbox check) waits for this, so it does not compete with the client's initialize and tools/list on
   * a small machine; by default it starts at once.
   */
  backgroundAfter?: Promise<void>;
}

/** A configured server: `factory` makes one McpServer per connection (stdio) or request (HTTP). */
export interface FsServer {
  factory: McpServerFactory;
  ctx: ToolContext;
  /** Stops the sandbox runner; the factory must not be used afterwards. */
  close(): Promise<void>;
}

/** Resolves the roots (failing fast if missing) and returns the McpServer factory. */
export async function createFsServer(opts: FsServerOptions): Promise<FsServer> {
  const roots = await resolveRoots([
    { name: ROOT.project, path: opts.projectRoot, writable: true },
    { name: ROOT.assets, path: opts.assetsRoot, writable: true },
  ]);
  const policy = new PathPolicy(roots);
  const log = opts.log ?? createLogger(opts.logLevel ?? "info");
  const later = opts.backgroundAfter ?? Promise.resolve();
  // exec_run_python is listed only where bubblewrap works: wait for the probe (started early by the bin).
  if (opts.exec && opts.exec.sandbox !== "none") await probeBwrap();
  const exec = opts.exec
    ? {
        audit: new AuditLog(opts.exec.auditLog, roots),
        defaultTimeoutMs: opts.exec.defaultTimeoutMs ?? EXEC_LIMITS.defaultTimeoutMs,
        pool: new ExecPool({
          projectRoot: policy.project.real,
          assetsRoot: policy.root(ROOT.assets).real,
          sandbox: opts.exec.sandbox,
          size: opts.exec.runners,
          log,
        }),
      }
    : undefined;
  // No runner yet: starting one (isolated-vm, vega, resvg: about a second of CPU) would compete with
  // the client's handshake (spawn → initialize → tools/list) on a small machine. The first tool call
  // starts it in the background (defineTool), and an exec_run_js that comes first starts its own.
  const python = exec && opts.exec ? startPython(opts.exec, policy, exec.audit, log, later) : undefined;
  const sqlOpts = opts.sql ?? (opts.exec ? { sandbox: opts.exec.sandbox } : false);
  // Started at the first tool call (tools/result.ts): tests that never query pay nothing for it.
  const sql = sqlOpts
    ? {
        timeoutMs: sqlOpts.timeoutMs ?? SQL_LIMITS.defaultTimeoutMs,
        pool: createSqlPool({
          projectRoot: policy.project.real,
          assetsRoot: policy.root(ROOT.assets).real,
          sandbox: sqlOpts.sandbox,
          log,
        }),
      }
    : undefined;
  // Temp files and locks of writes cut short by a kill: a walk of both roots (tens of ms of CPU on a
  // tree of 20,000 files), so after the handshake.
  void later
    .then(() => removeStaleTemps(roots))
    .then(
      (count) => count > 0 && log.info({ count }, "removed files left by interrupted writes"),
      (err: unknown) => log.warn({ err: String(err) }, "could not look for files left by interrupted writes"),
    );
  const ctx: ToolContext = {
    policy,
    log,
    ide: opts.ide ?? createIdeClient(opts.ideUrl, opts.ideToken),
    ...(exec ? { exec } : {}),
    ...(python ? { python } : {}),
    ...(sql ? { sql } : {}),
  };
  const factory: McpServerFactory = () => {
    const server = new McpServer(SERVER_INFO, {
      // The lists never change while a server runs, so no list_changed notifications are promised
      // (and over HTTP no standalone SSE stream is offered to carry them).
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      },
      instructions: INSTRUCTIONS,
    });
    registerTools(server, ctx);
    registerRootResources(server, ctx.policy);
    registerPrompts(server, ctx);
    return server;
  };
  return {
    factory,
    ctx,
    close: async () => {
      await Promise.all([exec?.pool.close(), python?.pool.close(), sql?.pool.close()]);
    },
  };
}

/**
 * exec_run_python when python3, its data modules and bubblewrap are here (checked without a new
 * process); otherwise the tool is left out and one log line says why. The sandbox itself is tried once
 * `later` settles (after the handshake: its bwrap + python3 run takes ~250 ms of CPU beside ours, and
 * spawning it some of ours); should that fail, calls answer why and
 * servers made afterwards (new HTTP sessions) leave the tool out — the lists promise no list_changed.
 * There is no unsandboxed fallback, whatever EXEC_SANDBOX says.
 */
function startPython(
  opts: { sandbox: SandboxMode; pythonTimeoutMs?: number | undefined; pythonZygotes?: number },
  policy: PathPolicy,
  audit: AuditLog,
  log: Logger,
  later: Promise<void>,
): ToolContext["python"] {
  const roots = { projectRoot: policy.project.real, assetsRoot: policy.root(ROOT.assets).real };
  const why = opts.sandbox === "none" ? "EXEC_SANDBOX=none, and Python never runs unsandboxed" : pythonMissing();
  if (why) {
    log.warn(`exec_run_python is off: ${why}.`);
    return undefined;
  }
  // Its zygotes start with the first tool call (tools/result.ts), after the client's handshake.
  const pool = new PythonPool({ ...roots, policy, log, size: opts.pythonZygotes });
  const python: NonNullable<ToolContext["python"]> = {
    pool,
    audit,
    defaultTimeoutMs: opts.pythonTimeoutMs ?? PY_LIMITS.defaultTimeoutMs,
    unavailable: later
      .then(() => pythonSandboxFails(roots))
      .catch((err: unknown) => `the sandbox check failed (${err instanceof Error ? err.message : String(err)})`)
      .then(async (failed) => {
        if (failed) {
          python.off = failed;
          log.warn(`exec_run_python is off: ${failed}.`);
          await pool.close();
        }
        return failed;
      }),
  };
  return python;
}
