#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";
import { createFsServer } from "./server.js";
import { runHttp } from "./transports/http-server.js";
import { runStdio } from "./transports/stdio.js";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `mcp-fs-server needs Node 22 or newer (this is ${process.version}). Run it with the repo's pinned Node: \`npm install\` then \`npx node ...\`.\n`,
  );
  process.exit(1);
}

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2), process.env);
  const fs = await createFsServer(config);
  if (config.transport === "stdio") {
    runStdio(fs);
    return;
  }
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
  const stop = () => void http.close().finally(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
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
});
