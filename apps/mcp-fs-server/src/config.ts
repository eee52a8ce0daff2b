import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { EXEC_LIMITS } from "./exec/limits.js";

const USAGE = `Usage: mcp-fs-server --root DIR --assets DIR [--http] [--port N] [--host H] [--token T]

  --root DIR        project_root (read/write)            env PROJECT_ROOT
  --assets DIR      generated_assets (read/write)        env GENERATED_ASSETS
  --http            serve Streamable HTTP instead of stdio
  --port N          HTTP port (default 3001, 0 = any)    env MCP_HTTP_PORT
  --host H          HTTP bind address (default 127.0.0.1) env MCP_HTTP_HOST
  --token T         bearer token (default: generated)    env MCP_HTTP_TOKEN
  MCP_HTTP_USER_TOKENS  JSON [{"user","sha256"}]: per-user bearer tokens (SHA-256 hex) also
                    accepted; the exec audit log names the user
  --no-auth         no bearer token (loopback only; for local test tools)
  --allowed-host H  extra accepted Host/Origin name (repeatable)
  MCP_SESSION_PREFIX  starts every 2025-11-25 session id (then "~"): a proxy in front of several
                    servers routes a session back to the one that holds it
  --ide-url URL     textide web server, for system_open_file  env TEXTIDE_IDE_URL
  --audit-log FILE  exec_run_js audit log (JSONL, outside the roots)  env EXEC_AUDIT_LOG
  --exec-sandbox M  auto | bwrap | none (default auto)  env EXEC_SANDBOX
  --exec-runners N  exec_run_js runs side by side (default: cores, 2..4)  env EXEC_RUNNERS
  --no-exec         leave exec_run_js and exec_run_python out
                    (env EXEC_TIMEOUT_SEC / PY_EXEC_TIMEOUT_SEC: default time limits)
  --no-sql          leave sql_query out (its workers use --exec-sandbox)
  SQL_TIMEOUT_SEC   sql_query statement timeout (default 30, max 120)
  --log-level L     pino level (default info)            env LOG_LEVEL`;

/**
 * A *_TIMEOUT_SEC setting: seconds (the product spec's unit), at most `maxSec`, counted by the server
 * in milliseconds.
 */
function timeoutSec(name: string, maxSec: number) {
  return z.coerce
    .number()
    .positive()
    .max(maxSec, `${name} must be at most ${maxSec}`)
    .transform((sec) => Math.round(sec * 1000))
    .optional();
}

const schema = z.object({
  projectRoot: z.string().min(1, "--root (or PROJECT_ROOT) is required"),
  assetsRoot: z.string().min(1, "--assets (or GENERATED_ASSETS) is required"),
  transport: z.enum(["stdio", "http"]),
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65535),
  token: z.string().min(16, "--token must be at least 16 characters").optional(),
  noAuth: z.boolean(),
  userTokens: z.array(
    z.object({
      user: z.string().min(1).max(64),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 hex digits"),
    }),
  ),
  allowedHosts: z.array(z.string()),
  sessionIdleMs: z.coerce.number().int().positive(),
  sessionPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, "MCP_SESSION_PREFIX must be 1–64 letters, digits, '.', '_', ':' or '-'")
    .optional(),
  ideUrl: z.url().optional(),
  ideToken: z.string().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  exec: z.union([
    z.literal(false),
    z.object({
      auditLog: z.string().min(1),
      sandbox: z.enum(["auto", "bwrap", "none"]),
      runners: z.coerce.number().int().min(1).max(EXEC_LIMITS.maxRunners).optional(),
      defaultTimeoutMs: timeoutSec("EXEC_TIMEOUT_SEC", EXEC_LIMITS.maxTimeoutMs / 1000),
      pythonTimeoutMs: timeoutSec("PY_EXEC_TIMEOUT_SEC", EXEC_LIMITS.maxTimeoutMs / 1000),
    }),
  ]),
  sql: z.union([
    z.literal(false),
    z.object({
      sandbox: z.enum(["auto", "bwrap", "none"]),
      timeoutMs: timeoutSec("SQL_TIMEOUT_SEC", 120),
    }),
  ]),
});

/** Everything the server needs, parsed once from flags and env at start. */
export type ServerConfig = Readonly<z.infer<typeof schema>>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Parses argv and env; throws ConfigError with the usage text on bad input. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): ServerConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        root: { type: "string" },
        assets: { type: "string" },
        http: { type: "boolean", default: false },
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string" },
        "no-auth": { type: "boolean", default: false },
        "allowed-host": { type: "string", multiple: true },
        "ide-url": { type: "string" },
        "log-level": { type: "string" },
        "audit-log": { type: "string" },
        "exec-sandbox": { type: "string" },
        "exec-runners": { type: "string" },
        "no-exec": { type: "boolean", default: false },
        "no-sql": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n\n${USAGE}`);
  }
  if (values.help) throw new ConfigError(USAGE);
  const parsed = schema.safeParse({
    projectRoot: values.root ?? env.PROJECT_ROOT ?? "",
    assetsRoot: values.assets ?? env.GENERATED_ASSETS ?? "",
    transport: values.http ? "http" : "stdio",
    host: values.host ?? env.MCP_HTTP_HOST ?? "127.0.0.1",
    port: values.port ?? env.MCP_HTTP_PORT ?? 3001,
    token: values.token ?? env.MCP_HTTP_TOKEN ?? undefined,
    noAuth: values["no-auth"],
    userTokens: parseUserTokens(env.MCP_HTTP_USER_TOKENS),
    allowedHosts: values["allowed-host"] ?? [],
    sessionIdleMs: env.MCP_SESSION_IDLE_MS ?? 30 * 60_000,
    sessionPrefix: env.MCP_SESSION_PREFIX || undefined,
    ideUrl: values["ide-url"] ?? env.TEXTIDE_IDE_URL ?? undefined,
    ideToken: env.TEXTIDE_IDE_TOKEN ?? undefined,
    logLevel: values["log-level"] ?? env.LOG_LEVEL ?? "info",
    exec: values["no-exec"]
      ? false
      : {
          auditLog: values["audit-log"] ?? env.EXEC_AUDIT_LOG ?? defaultAuditLog(env),
          sandbox: values["exec-sandbox"] ?? env.EXEC_SANDBOX ?? "auto",
          runners: values["exec-runners"] ?? (env.EXEC_RUNNERS || undefined),
          defaultTimeoutMs: env.EXEC_TIMEOUT_SEC || undefined,
          pythonTimeoutMs: env.PY_EXEC_TIMEOUT_SEC || undefined,
        },
    sql: values["no-sql"]
      ? false
      : { sandbox: values["exec-sandbox"] ?? env.EXEC_SANDBOX ?? "auto", timeoutMs: env.SQL_TIMEOUT_SEC || undefined },
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new ConfigError(`Invalid configuration:\n${problems}\n\n${USAGE}`);
  }
  const config = parsed.data;
  if (config.noAuth && !isLoopback(config.host)) {
    throw new ConfigError("--no-auth is only allowed when binding to a loopback address.");
  }
  return Object.freeze(config);
}

/** MCP_HTTP_USER_TOKENS as JSON; what is not JSON is left for the schema to refuse with the variable named. */
function parseUserTokens(value: string | undefined): unknown {
  if (value === undefined || value === "") return [];
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return "MCP_HTTP_USER_TOKENS is not JSON";
  }
}

/** `$XDG_STATE_HOME/textide/exec-audit.jsonl`, i.e. outside any workspace by default. */
function defaultAuditLog(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), ".local", "state");
  return path.join(state, "textide", "exec-audit.jsonl");
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}
