import type { UserToken } from "../auth/user-token.js";
import { spawn, type ChildProcess } from "node:child_process";
import type { Logger } from "../log.js";
import type { McpCallLog } from "./call-log.js";
import { childLogLevel, childStderr } from "./child-stderr.js";
import { mcpServerCommand } from "./server-command.js";

export interface McpHttpChildOptions {
  /** apps/mcp-fs-server/dist/index.js */
  bin: string;
  projectRoot: string;
  generatedAssets: string;
  auditLog: string;
  host: string;
  /** 0: any free port on the first start; restarts reuse the port it got, so the printed URL stays valid. */
  port: number;
  token: string;
  /** Host names besides the loopback ones (ALLOWED_HOSTS: the name the proxy in front is reached by). */
  allowedHosts?: readonly string[];
  /** Users' own MCP tokens (SHA-256 hex), accepted beside `token`; their calls are audited with the user. */
  userTokens?: readonly UserToken[];
  /** This web server, for `system_open_file`. */
  ideUrl: string;
  ideToken?: string | undefined;
  /** Environment of the child (from `pickMcpEnv`); the token and log level are added. */
  env: Readonly<Record<string, string>>;
  /** LOG_LEVEL the user asked for (its tool-call lines are read whatever it is). */
  logLevel: string;
  calls: McpCallLog;
  log: Logger;
  /** First restart delay; doubles per failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A child that ran this long resets the backoff. */
  stableMs?: number;
}

export interface McpHttpChild {
  readonly token: string;
  /** Resolves with the endpoint URL once the first child listens (never rejects: failures are retried). */
  readonly ready: Promise<string>;
  /** The current child's pid (undefined between a crash and its restart). */
  pid(): number | undefined;
  close(): Promise<void>;
}

/** The MCP server's exit code for a bad configuration: restarting cannot help. */
const CONFIG_ERROR_EXIT = 2;

/**
 * Runs the bundled MCP server over Streamable HTTP for external clients (Claude Desktop, Inspector) as a
 * supervised child: restarted with exponential backoff when it dies, its tool calls read from its stderr
 * into the call log (source "external").
 */
export function startMcpHttpChild(opts: McpHttpChildOptions): McpHttpChild {
  const backoffMs = opts.backoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  const stableMs = opts.stableMs ?? 10_000;
  let port = opts.port;
  let child: ChildProcess | undefined;
  let failures = 0;
  let closing = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let resolveReady: (url: string) => void = () => undefined;
  const ready = new Promise<string>((resolve) => (resolveReady = resolve));

  const spawnChild = (): void => {
    const started = Date.now();
    const cmd = mcpServerCommand(
      {
        bin: opts.bin,
        projectRoot: opts.projectRoot,
        generatedAssets: opts.generatedAssets,
        auditLog: opts.auditLog,
        ideUrl: opts.ideUrl,
        ideToken: opts.ideToken,
        env: opts.env,
        logLevel: childLogLevel(opts.logLevel),
      },
      {
        host: opts.host,
        port,
        token: opts.token,
        userTokens: opts.userTokens ?? [],
        allowedHosts: opts.allowedHosts ?? [],
      },
    );
    const proc = spawn(cmd.command, cmd.args, {
      env: cmd.env,
      // The IPC channel carries no messages: its closing tells the child that this process is gone.
      // stdout carries only a banner for people; the URL comes from the structured log on stderr.
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    child = proc;
    const stderr = childStderr({
      calls: opts.calls,
      source: "external",
      log: opts.log,
      label: "mcp:http",
      level: opts.logLevel,
      // Where the server really listens (port 0 picks one): restarts reuse it, so the URL stays valid.
      onListening: (url) => {
        port = Number(new URL(url).port);
        if (failures > 0) opts.log.info("MCP HTTP server restarted", { url, pid: proc.pid });
        resolveReady(url);
      },
    });
    proc.stderr?.on("data", (d: Buffer) => stderr.write(d));
    proc.stderr?.on("end", () => stderr.end());
    proc.on("error", (err) => opts.log.error("MCP HTTP server could not be started", { err: String(err) }));
    proc.on("exit", (code, signal) => {
      if (child === proc) child = undefined;
      if (closing) return;
      if (code === CONFIG_ERROR_EXIT) {
        opts.log.error("MCP HTTP server refused its configuration; not restarting it", { code });
        return;
      }
      if (Date.now() - started >= stableMs) failures = 0;
      const delay = Math.min(maxBackoffMs, backoffMs * 2 ** failures);
      failures++;
      opts.log.warn("MCP HTTP server exited; restarting", { code, signal, inMs: delay });
      restartTimer = setTimeout(spawnChild, delay);
    });
  };

  spawnChild();

  return {
    token: opts.token,
    ready,
    pid: () => child?.pid,
    async close() {
      closing = true;
      clearTimeout(restartTimer);
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      proc.kill("SIGTERM");
      const forced = setTimeout(() => proc.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(forced);
    },
  };
}

/** The startup lines that tell a user how to connect an external client. */
export function describeMcpHttp(url: string, token: string, generated: boolean): string {
  // A token the user configured is theirs already: it stays out of the terminal and its scrollback.
  const shown = generated ? token : "$MCP_HTTP_TOKEN";
  return [
    `MCP server (Streamable HTTP) for external clients: ${url}`,
    `  Bearer token: ${generated ? token : "the one set in MCP_HTTP_TOKEN"}`,
    `  Try it: npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: Bearer ${shown}" --method tools/list`,
  ].join("\n");
}
