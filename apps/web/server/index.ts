import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { createWebServer, type WebServer } from "./app.js";
import { loadConfig } from "./config.js";
import { toAppError } from "./errors.js";
import { allowedHostnames, checkHostAndOrigin, checkRequestTarget } from "./http/guard.js";
import { sendError } from "./http/respond.js";
import { consoleLogger } from "./log.js";
import { McpCallLog } from "./mcp/call-log.js";
import { agentCallCapture } from "./mcp/child-stderr.js";
import { describeMcpHttp, startMcpHttpChild } from "./mcp/http-child.js";
import { createNextHandler, type NextHandler } from "./next-handler.js";
import { createAgentRuntime } from "./runtime/agent-runtime.js";

/** apps/web, from `server/` under tsx and from `dist/server/` once built. */
function webDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === "dist" ? path.resolve(here, "../..") : path.resolve(here, "..");
}

/** Paths the web server answers itself; everything else is the Next.js UI. */
function isServerPath(url: string): boolean {
  return url.startsWith("/api/") || url === "/api" || url.startsWith("/socket.io");
}

/**
 * Routes every request that is not `/api/*` or `/socket.io` to Next.js, leaving the web server's own
 * request listeners (REST routes, engine.io) untouched for the paths they own.
 */
function mountNext(app: WebServer, next: NextHandler, allowedHosts: Set<string>): void {
  const own = app.server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  app.server.removeAllListeners("request");
  app.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    try {
      checkRequestTarget(req);
    } catch (err) {
      sendError(res, toAppError(err));
      return;
    }
    if (isServerPath(req.url ?? "/")) {
      for (const listener of own) listener.call(app.server, req, res);
      return;
    }
    try {
      checkHostAndOrigin(req, allowedHosts, false);
    } catch (err) {
      sendError(res, toAppError(err));
      return;
    }
    next.handle(req, res).catch((err: unknown) => {
      consoleLogger.error("next request failed", { url: req.url, err: String(err) });
      sendError(res, toAppError(err));
    });
  });
  if (next.upgrade) {
    const upgrade = next.upgrade;
    app.server.on("upgrade", (req: IncomingMessage, socket, head: Buffer) => {
      if (!isServerPath(req.url ?? "/")) void upgrade(req, socket, head);
    });
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const roots = await resolveRoots([
    { name: ROOT.project, path: config.projectRoot, writable: true },
    { name: ROOT.assets, path: config.generatedAssets, writable: true },
  ]);
  const dev = process.env.NODE_ENV === "development";
  const nextHandler = await createNextHandler({ dev, dir: webDir(), hostname: config.host, port: config.port });
  const listening: { url?: string } = {};
  const calls = new McpCallLog();
  const runtime = createAgentRuntime({
    projectRoot: config.projectRoot,
    generatedAssets: config.generatedAssets,
    dataDir: config.dataDir,
    mcpServerBin: config.mcpServerBin,
    // system_open_file in the bundled MCP server calls back into this server.
    ideUrl: () => listening.url,
    ideToken: config.ideToken,
    mcpEnv: config.mcpEnv,
    ...agentCallCapture(calls, consoleLogger, config.mcpLogLevel),
    toolTimeoutMs: config.toolTimeoutMs,
    modelEnv: config.modelEnv,
    approveTools: config.approveTools,
    log: consoleLogger,
  });
  const app = createWebServer({ config, policy: new PathPolicy(roots), log: consoleLogger, runtime, calls });
  mountNext(app, nextHandler, allowedHostnames(config.host, config.allowedHosts));
  await new Promise<void>((resolve, reject) => {
    app.server.once("error", reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const loopback = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : host;
  listening.url = `http://${loopback}:${port}`;
  console.log(`textide web server listening on http://${host}:${port} · model: ${runtime.model.label}`);

  const mcpHttp =
    config.mcpHttp &&
    startMcpHttpChild({
      bin: config.mcpServerBin,
      projectRoot: config.projectRoot,
      generatedAssets: config.generatedAssets,
      auditLog: path.join(config.dataDir, "exec-audit.jsonl"),
      host: config.mcpHttp.host,
      port: config.mcpHttp.port,
      token: config.mcpHttp.token ?? randomBytes(24).toString("base64url"),
      ideUrl: listening.url,
      ideToken: config.ideToken,
      env: config.mcpEnv,
      logLevel: config.mcpLogLevel,
      calls,
      log: consoleLogger,
    });
  if (mcpHttp) {
    const generated = config.mcpHttp?.token === undefined;
    void mcpHttp.ready.then((url) => console.log(describeMcpHttp(url, mcpHttp.token, generated)));
  } else console.log("MCP server over Streamable HTTP: off (MCP_HTTP_PORT=off)");

  const shutdown = (): void => {
    void Promise.all([app.close(), nextHandler.close(), mcpHttp?.close()]).then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
