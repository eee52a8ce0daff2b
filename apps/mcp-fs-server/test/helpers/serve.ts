import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createLogger } from "../../src/log.js";
import { createFsServer, type FsServer } from "../../src/server.js";
import { runHttp, type RunningHttpServer } from "../../src/transports/http-server.js";
import { SERVER_BIN, type TmpWorkspace } from "./tmp-root.js";

// How the HTTP and stdio tests start the real server: one place for the command line and the
// transport options, so each test file only states what it changes.

/** The built binary's command line for a workspace (stdio unless `--http` is added; warn-level logs). */
export function serverArgs(ws: TmpWorkspace, ...extra: string[]): string[] {
  return [
    SERVER_BIN,
    "--root",
    ws.project,
    "--assets",
    ws.assets,
    "--audit-log",
    path.join(ws.base, "audit.jsonl"),
    "--log-level",
    "warn",
    ...extra,
  ];
}

/** `serverArgs` with one exec runner, as the single-client tests run it. */
export function binaryArgs(ws: TmpWorkspace, ...extra: string[]): string[] {
  return serverArgs(ws, "--exec-runners", "1", ...extra);
}

/** An SDK client connected (initialized) to the built binary over stdio, as a desktop client runs it. */
export async function connectStdioBinary(ws: TmpWorkspace, name: string): Promise<Client> {
  const client = new Client({ name, version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: binaryArgs(ws), stderr: "ignore" }));
  return client;
}

/**
 * The real server in this process over Streamable HTTP on a free loopback port, bearer token required.
 * `fs` replaces the server (to add a test-only tool); `options` overrides the transport settings.
 * close() stops the listener and then the server.
 */
export async function startHttpInProcess(
  ws: TmpWorkspace,
  token: string,
  options: Partial<Parameters<typeof runHttp>[1]> & { fs?: FsServer } = {},
): Promise<RunningHttpServer> {
  const { fs, ...overrides } = options;
  const server =
    fs ?? (await createFsServer({ projectRoot: ws.project, assetsRoot: ws.assets, log: createLogger("silent") }));
  const http = await runHttp(server, {
    host: "127.0.0.1",
    port: 0,
    token,
    noAuth: false,
    allowedHosts: [],
    sessionIdleMs: 60_000,
    ...overrides,
  });
  return {
    ...http,
    // The server's runner pools outlive the HTTP listener unless closed too.
    async close() {
      await http.close();
      await server.close();
    },
  };
}
