import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { MCP_LOG_EVENT, type McpListeningRecord } from "@textide/shared";
import type { ServerConfig } from "../config.js";
import type { FsServer } from "../server.js";
import { createHttpHandler, type HttpHandler } from "./http.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import type { SessionLimits } from "./session-table.js";

export interface RunningHttpServer {
  url: string;
  token: string | undefined;
  handler: HttpHandler;
  server: Server;
  close(): Promise<void>;
}

/** Serves Streamable HTTP on node:http; generates a token when none was configured. */
export async function runHttp(
  fs: FsServer,
  config: Pick<
    ServerConfig,
    "host" | "port" | "token" | "noAuth" | "allowedHosts" | "sessionIdleMs" | "sessionPrefix"
  > & {
    sessionLimits?: SessionLimits;
    userTokens?: ServerConfig["userTokens"];
  },
): Promise<RunningHttpServer> {
  const token = config.noAuth ? undefined : (config.token ?? randomBytes(24).toString("base64url"));
  const handler = createHttpHandler(fs, {
    token,
    userTokens: config.noAuth ? [] : (config.userTokens ?? []),
    allowedHosts: config.allowedHosts,
    sessionIdleMs: config.sessionIdleMs,
    ...(config.sessionPrefix ? { sessionPrefix: config.sessionPrefix } : {}),
    sessionLimits: config.sessionLimits,
  });
  const nodeHandler = toNodeHandler(handler, { maxRequestBodySize: MAX_MESSAGE_BYTES });
  const server = createServer((req, res) => {
    // toNodeHandler reads the whole body before the handler sees the request, so the checks that
    // need only headers run first: a caller without the token cannot make us read 28 MiB.
    const refusal = handler.check(req.url ?? "/", (name) => headerOf(req, name));
    if (refusal) void refuse(res, refusal);
    else void nodeHandler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/mcp`;
  const listening: McpListeningRecord = { event: MCP_LOG_EVENT.listening, url, auth: token ? "bearer" : "none" };
  fs.ctx.log.info(listening, "serving MCP over Streamable HTTP");
  return {
    url,
    token,
    handler,
    server,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
}

/** Sends a refusal and closes the connection: the body, if any, is never read. */
async function refuse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    "content-length": body.length,
    connection: "close",
  });
  res.end(body);
}
