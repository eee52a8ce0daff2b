import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Workspace } from "./helpers.js";

const WEB = fileURLToPath(new URL("../", import.meta.url));
const SERVER = path.join(WEB, "dist/server/index.js");
/** Why tests of the production build cannot run, if they cannot. */
export const NOT_BUILT =
  existsSync(SERVER) && existsSync(path.join(WEB, ".next/BUILD_ID"))
    ? undefined
    : "apps/web is not built (npm run build -w apps/web)";

export interface ProductionServer {
  child: ChildProcess;
  /** The web server's URL. */
  base: string;
  /** The MCP endpoint for external clients, and its bearer token, as printed at start. */
  mcpUrl: string;
  token: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** The production server as `npm start` runs it, on free ports (PORT=0, MCP_HTTP_PORT=0). */
export function startProduction(ws: Workspace): Promise<ProductionServer> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    MCP_HTTP_PORT: "0",
    PROJECT_ROOT: ws.project,
    GENERATED_ASSETS: ws.assets,
    TEXTIDE_DATA_DIR: path.join(ws.dir, "data"),
  };
  for (const key of ["MCP_HTTP_TOKEN", "TEXTIDE_IDE_TOKEN", "TEXTIDE_MODEL", "LOG_LEVEL"]) delete env[key];
  const child = spawn(process.execPath, [SERVER], { cwd: WEB, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 25_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const base = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      const mcpUrl = /for external clients: (http:\/\/\S+)/.exec(log)?.[1];
      const token = /Bearer token: (\S+)/.exec(log)?.[1];
      if (base && mcpUrl && token) {
        clearTimeout(timer);
        resolve({ child, base, mcpUrl, token, output: () => log, stop });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}

/** A real MCP SDK client over Streamable HTTP with a bearer token. */
export async function connectMcp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "textide-web-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The server's MCP HTTP child (only ours: a child of the server process the test spawned). */
export function mcpChildPid(serverPid: number): number | undefined {
  try {
    const out = execFileSync("pgrep", ["-P", String(serverPid), "-f", "--", "--http"], { encoding: "utf8" });
    return out.split("\n").filter(Boolean).map(Number)[0];
  } catch {
    return undefined; // pgrep exits 1 when nothing matches
  }
}
