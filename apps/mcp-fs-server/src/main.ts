import { ConfigError, loadConfig } from "./config.js";
import { createFsServer, type FsServer } from "./server.js";
import { runStdio } from "./transports/stdio.js";

/** The CLI: parse config, build the server, serve stdio or HTTP. */
export async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2), process.env);
  // Over stdio a client spawns this process and waits for initialize and tools/list: what they do not
  // need waits until the transport sees them answered. Over HTTP it starts at once.
  let handshake = () => {};
  const backgroundAfter = config.transport === "stdio" ? new Promise<void>((done) => (handshake = done)) : undefined;
  const fs = await createFsServer({ ...config, backgroundAfter });
  // Naming the sandbox probes bubblewrap (a blocking spawn), so these lines wait for the handshake too.
  void (backgroundAfter ?? Promise.resolve()).then(() => logEnabled(fs));
  if (config.transport === "stdio") {
    runStdio(fs, { onHandshake: handshake });
    return;
  }
  const { runHttp } = await import("./transports/http-server.js");
  const http = await runHttp(fs, config);
  // Human-facing connection help; under HTTP stdout is not a protocol channel.
  process.stdout.write(
    [
      "",
      `textide MCP server (Streamable HTTP) on ${http.url}`,
      http.token ? `  Bearer token: ${http.token}` : "  Auth: none (--no-auth, loopback only)",
      `  project_root:     ${fs.ctx.policy.project.real}`,
      `  generated_assets: ${fs.ctx.policy.root("generated_assets").real}`,
      "",
      "Connect a client:",
      `  npx @modelcontextprotocol/inspector --cli ${http.url} --transport http${http.token ? ` --header "Authorization: Bearer ${http.token}"` : ""} --method tools/list`,
      `  Claude Code: claude mcp add --transport http textide ${http.url}${http.token ? ` --header "Authorization: Bearer ${http.token}"` : ""}`,
      "",
    ].join("\n") + "\n",
  );
  const stop = () => void Promise.allSettled([http.close(), fs.close()]).finally(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // Run by a supervisor with an IPC channel (textide's web server): leave with it, even when it was
  // SIGKILLed and could not stop us. The channel must not keep this process alive by itself.
  if (process.channel) {
    process.channel.unref();
    process.once("disconnect", stop);
  }
}

function logEnabled(fs: FsServer): void {
  if (fs.ctx.exec)
    fs.ctx.log.info(
      { sandbox: fs.ctx.exec.pool.sandbox, runners: fs.ctx.exec.pool.size, auditLog: fs.ctx.exec.audit.file },
      "exec_run_js enabled",
    );
  if (fs.ctx.python) fs.ctx.log.info({ sandboxes: fs.ctx.python.pool.size }, "exec_run_python enabled");
  // Its DuckDB worker starts with the first tool call, like exec_run_js's runner (tools/result.ts).
  if (fs.ctx.sql)
    fs.ctx.log.info({ sandbox: fs.ctx.sql.pool.sandbox, timeoutMs: fs.ctx.sql.timeoutMs }, "sql_query enabled");
}

export function exitOnStartupError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  const hint =
    (err as NodeJS.ErrnoException).code === "EADDRINUSE"
      ? " Another process uses that port: stop it, or pick another with --port / MCP_HTTP_PORT."
      : "";
  process.stderr.write(`mcp-fs-server failed to start: ${(err as Error).message}.${hint}\n`);
  process.exit(1);
}
