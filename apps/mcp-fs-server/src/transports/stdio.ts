import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { FsServer } from "../server.js";

/**
 * The SDK's stdio transport reports a line that is JSON but not JSON-RPC to `onerror` and drops
 * it; JSON-RPC asks for an error response (id null), so the client learns why nothing came back.
 * (Lines that are not JSON at all are skipped by the SDK on purpose, to tolerate stray output.)
 * Everything else is delegated unchanged.
 */
export class AnsweringStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly inner: Transport = new StdioServerTransport()) {}

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onmessage = (m) => this.onmessage?.(m);
    this.inner.onerror = (error) => {
      const reply = parseFailureReply(error);
      if (reply) void this.inner.send(reply).catch(() => undefined);
      this.onerror?.(error);
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function parseFailureReply(error: Error): JSONRPCMessage | undefined {
  if (error.name !== "ZodError") return undefined;
  return {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message:
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (needs jsonrpc: "2.0", method, and id for requests).',
    },
  } as unknown as JSONRPCMessage;
}

/** Serves the factory over stdin/stdout until stdin closes or a signal arrives. */
export function runStdio(fs: FsServer): { close(): Promise<void> } {
  const handle = serveStdio(fs.factory, {
    transport: new AnsweringStdioTransport(),
    onerror: (err) => fs.ctx.log.warn({ err: err.message }, "stdio transport error"),
  });
  const stop = () => {
    void Promise.allSettled([handle.close(), fs.close()]).finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.stdin.once("end", stop);
  fs.ctx.log.info({ roots: fs.ctx.policy.roots.map((r) => r.real) }, "serving MCP over stdio");
  return handle;
}
