import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { serverArgs } from "../helpers/serve.js";
import { makeWorkspace, SERVER_BIN, type TmpWorkspace } from "../helpers/tmp-root.js";

export { serverArgs };

// The bundled server as third-party clients meet it: the built binary, over stdio (spawned by the
// client) and over Streamable HTTP (started as `npm run mcp` starts it, on a free port with a token).

export const TOKEN = "interop-token-0123456789abcdef";
export const REPO = path.resolve(path.dirname(SERVER_BIN), "../../..");
export const BIN = (name: string) => path.join(REPO, "node_modules/.bin", name);

export interface HttpServer {
  ws: TmpWorkspace;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  stop(): Promise<void>;
}

/** Starts the binary with `--http` on a free port and waits for the URL it prints. */
export async function startHttpServer(files: Record<string, string | Buffer | null> = {}): Promise<HttpServer> {
  const ws = await makeWorkspace(files);
  const child: ChildProcess = spawn(process.execPath, serverArgs(ws, "--http", "--port", "0", "--token", TOKEN), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /Streamable HTTP\) on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the HTTP server exited (${code}): ${stderr}`)));
  });
  return {
    ws,
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      await ws.cleanup();
    },
  };
}
