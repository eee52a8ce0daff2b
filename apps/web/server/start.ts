import { randomBytes } from "node:crypto";
import path from "node:path";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { createWebServer } from "./app.js";
import { startCluster } from "./cluster/cluster.js";
import { createWebAuditLog } from "./auth/audit.js";
import { teamAuth } from "./auth/from-config.js";
import type { WebConfig } from "./config.js";
import type { Logger } from "./log.js";
import { McpCallLog } from "./mcp/call-log.js";
import { agentCallCapture } from "./mcp/child-stderr.js";
import { describeMcpHttp, startMcpHttpChild } from "./mcp/http-child.js";
import { createNextHandler, uiDir } from "./next-handler.js";
import { createAgentRuntime } from "./runtime/agent-runtime.js";

export interface Textide {
  close(): Promise<void>;
}

/**
 * `npm start`: the UI, the REST API and sockets on one port, the agent over its own bundled MCP server,
 * and that MCP server over Streamable HTTP for external clients. `print` gets the lines meant for people.
 */
export async function startTextide(config: WebConfig, log: Logger, print: (text: string) => void): Promise<Textide> {
  const roots = await resolveRoots([
    { name: ROOT.project, path: config.projectRoot, writable: true },
    { name: ROOT.assets, path: config.generatedAssets, writable: true },
  ]);
  const ui = await createNextHandler({ dev: config.dev, dir: uiDir(), hostname: config.host, port: config.port });
  const listening: { url?: string } = {};
  const calls = new McpCallLog();
  const auditLog = path.join(config.dataDir, "exec-audit.jsonl");
  const runtime = createAgentRuntime({
    projectRoot: config.projectRoot,
    generatedAssets: config.generatedAssets,
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    instanceId: config.instanceId,
    mcpServerBin: config.mcpServerBin,
    // system_open_file in the bundled MCP server calls back into this server.
    ideUrl: () => listening.url,
    ideToken: config.ideToken,
    mcpEnv: config.mcpEnv,
    ...agentCallCapture(calls, log, config.mcpLogLevel),
    toolTimeoutMs: config.toolTimeoutMs,
    modelEnv: config.modelEnv,
    approveTools: config.approveTools,
    log,
  });
  const audit = createWebAuditLog(config.dataDir, log);
  const team = teamAuth(config.team, audit);
  const cluster =
    config.redisUrl === undefined
      ? undefined
      : startCluster({
          url: config.redisUrl,
          instanceId: config.instanceId,
          log,
          // A dead instance's runs ended with it: their threads say so (and can be continued here).
          onInstanceGone: async (id) => {
            const threads = await runtime.markInterrupted(id);
            if (threads.length > 0) log.warn(`runs of instance ${id} marked interrupted`, { instance: id, threads });
          },
        });
  const app = createWebServer({
    config,
    policy: new PathPolicy(roots),
    log,
    runtime,
    calls,
    ui,
    audit,
    ...(team ? { auth: team.auth } : {}),
    ...(cluster ? { cluster } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    app.server.once("error", reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const loopback = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : host;
  listening.url = `http://${loopback}:${port}`;
  print(`textide web server listening on http://${host}:${port} · model: ${runtime.model.label}`);
  if (team) print(team.describe);

  const mcpHttp =
    config.mcpHttp &&
    startMcpHttpChild({
      bin: config.mcpServerBin,
      projectRoot: config.projectRoot,
      generatedAssets: config.generatedAssets,
      auditLog,
      host: config.mcpHttp.host,
      allowedHosts: config.allowedHosts,
      port: config.mcpHttp.port,
      token: config.mcpHttp.token ?? randomBytes(24).toString("base64url"),
      // Each user's own MCP token (hashed), so the exec audit log names who ran what.
      userTokens: team?.mcpUserTokens ?? [],
      ideUrl: listening.url,
      ideToken: config.ideToken,
      // Team deployment: session ids name this instance, for the proxy's session affinity (deploy/nginx.conf.template).
      env: config.redisUrl === undefined ? config.mcpEnv : { ...config.mcpEnv, MCP_SESSION_PREFIX: config.instanceId },
      logLevel: config.mcpLogLevel,
      calls,
      log,
    });
  if (mcpHttp) {
    const generated = config.mcpHttp?.token === undefined;
    void mcpHttp.ready.then((url) => print(describeMcpHttp(url, mcpHttp.token, generated)));
  } else print("MCP server over Streamable HTTP: off (MCP_HTTP_PORT=off)");

  return {
    async close() {
      await Promise.all([app.close(), ui.close(), mcpHttp?.close()]);
      await cluster?.close();
    },
  };
}
