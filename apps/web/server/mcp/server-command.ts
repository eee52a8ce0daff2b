/**
 * The one builder of the bundled MCP server's command line and environment, for both of its children:
 * the agent's (stdio) and the one external clients reach (Streamable HTTP).
 */
import type { UserToken } from "../auth/user-token.js";

/**
 * Variables passed on to the bundled MCP server (its config module reads them); the children inherit
 * nothing else, so model keys and the like stay out of code the agent runs.
 */
export const MCP_ENV_KEYS = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "XDG_STATE_HOME",
  "EXEC_RUNNERS",
  "EXEC_SANDBOX",
  "EXEC_TIMEOUT_SEC",
  "PY_EXEC_TIMEOUT_SEC",
  "MCP_SESSION_IDLE_MS",
] as const;

/** The subset of `env` the bundled MCP server gets. */
export function pickMcpEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of MCP_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

export interface McpServerSettings {
  /** apps/mcp-fs-server/dist/index.js */
  bin: string;
  projectRoot: string;
  generatedAssets: string;
  /** exec_run_js's audit log (kept outside the roots). */
  auditLog: string;
  /** This web server, for `system_open_file`; left out while unknown. */
  ideUrl?: string | undefined;
  ideToken?: string | undefined;
  /** From `pickMcpEnv`; LOG_LEVEL and the tokens are added here. */
  env: Readonly<Record<string, string>>;
  logLevel: string;
}

/** Streamable HTTP instead of stdio. */
export interface McpHttpListen {
  host: string;
  port: number;
  token: string;
  /** Host names besides the loopback ones that requests may name (the proxy's public name). */
  allowedHosts?: readonly string[];
  /** Per-user tokens (SHA-256 hex) the server also accepts, naming the user in its audit log. */
  userTokens?: readonly UserToken[];
}

export interface McpServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `node <bin> --root … --assets … [--http …]` with its environment. */
export function mcpServerCommand(s: McpServerSettings, http?: McpHttpListen): McpServerCommand {
  return {
    command: process.execPath,
    args: [
      s.bin,
      ...(http ? ["--http", "--host", http.host, "--port", String(http.port)] : []),
      ...(http?.allowedHosts ?? []).flatMap((h) => ["--allowed-host", h]),
      "--root",
      s.projectRoot,
      "--assets",
      s.generatedAssets,
      "--audit-log",
      s.auditLog,
      ...(s.ideUrl ? ["--ide-url", s.ideUrl] : []),
    ],
    // Tokens go by environment, not argv, which every local user can read in `ps`.
    env: {
      ...s.env,
      LOG_LEVEL: s.logLevel,
      ...(http ? { MCP_HTTP_TOKEN: http.token } : {}),
      ...(http?.userTokens?.length ? { MCP_HTTP_USER_TOKENS: JSON.stringify(http.userTokens) } : {}),
      ...(s.ideToken ? { TEXTIDE_IDE_TOKEN: s.ideToken } : {}),
    },
  };
}
