import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import type { ServerConfig } from "../config.js";
import type { FsServer } from "../server.js";
import { createHttpHandler, type HttpHandler } from "./http.js";

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
  config: Pick<ServerConfig, "host" | "port" | "token" | "noAuth" | "allowedHosts" | "sessionIdleMs">,
): Promise<RunningHttpServer> {
  const token = config.noAuth ? undefined : (config.token ?? randomBytes(24).toString("base64url"));
  const handler = createHttpHandler(fs, {
    token,
    allowedHosts: config.allowedHosts,
    sessionIdleMs: config.sessionIdleMs,
  });
  const nodeHandler = toNodeHandler(handler);
  const server = createServer((req, res) => void nodeHandler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/mcp`;
  fs.ctx.log.info({ url, auth: token ? "bearer" : "none" }, "serving MCP over Streamable HTTP");
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
