import path from "node:path";
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { createLogger } from "../../src/log.js";
import { createFsServer, type FsServerOptions } from "../../src/server.js";
import { makeWorkspace, type TmpWorkspace } from "./tmp-root.js";

export interface Connected {
  client: Client;
  ws: TmpWorkspace;
  logs: string[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A real SDK client talking to a real server over linked in-memory transports. */
export async function connectInMemory(
  opts: Partial<FsServerOptions> & { files?: Record<string, string | Buffer | null>; copySample?: boolean } = {},
): Promise<Connected> {
  const ws = await makeWorkspace(opts.files, opts.copySample);
  const logs: string[] = [];
  const sink = new Writable({
    // The logger hands over a turn's lines in one write.
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split("\n").filter(Boolean));
      cb();
    },
  });
  const fs = await createFsServer({
    projectRoot: ws.project,
    assetsRoot: ws.assets,
    log: createLogger("info", sink),
    exec: { auditLog: path.join(ws.base, "audit", "exec.jsonl"), sandbox: "auto" },
    ...opts,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(fs.factory, { transport: serverSide });
  const client = new Client({ name: "contract-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    ws,
    logs,
    call: (name, args) => client.callTool({ name, arguments: args }),
    async close() {
      await client.close();
      await handle.close();
      await fs.close();
      await ws.cleanup();
    },
  };
}

/** The first text block of a tool result. */
export function textOf(result: CallToolResult): string {
  const block = result.content.find((c) => c.type === "text");
  return block && block.type === "text" ? block.text : "";
}

/** The error code the server put in `_meta` of an isError result. */
export function errorCode(result: CallToolResult): string | undefined {
  return result.isError ? (result._meta?.["io.textide/error-code"] as string | undefined) : undefined;
}
