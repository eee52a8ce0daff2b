import { Readable, type Writable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { FsServer } from "../server.js";
import { describeBytes, MAX_MESSAGE_BYTES, messageTooLargeText } from "./limits.js";
import { LineFramer, type OversizedLine } from "./line-framer.js";
import { recoverRequestId } from "./request-id.js";

export interface StdioStreams {
  stdin?: Readable;
  stdout?: Writable;
  /** Longest line read, newline excluded (default {@link MAX_MESSAGE_BYTES}). */
  maxMessageBytes?: number;
  /**
   * Called once the client is past its handshake: the first answer to anything but initialize has
   * gone out (typically tools/list), a tools/call arrived, or 1 s passed since initialize was answered
   * (a host that lists nothing yet).
   */
  onHandshake?: () => void;
}

/** How long after initialize's answer the handshake counts as over without another request. */
const HANDSHAKE_GRACE_MS = 1000;

/**
 * The SDK's stdio transport with two gaps closed. A line longer than the limit is answered with a
 * JSON-RPC error (its id when the line's ends show it, else null) and skipped: the SDK's own buffer
 * limit instead closes the transport while the process keeps running, deaf. A line that is JSON
 * but not JSON-RPC is answered with -32600 (id null); the SDK only reports it to `onerror`. Lines
 * that are not JSON at all are still skipped by the SDK on purpose, to tolerate stray output.
 */
export class AnsweringStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly maxMessageBytes: number;
  /** What the SDK reads: stdin cut into whole lines within the limit. */
  private readonly framed = new Readable({ read() {} });
  private readonly framer: LineFramer;
  private readonly inner: StdioServerTransport;
  private ended = false;
  private onHandshake: (() => void) | undefined;
  private initializeId: unknown;

  constructor(streams: StdioStreams = {}) {
    this.stdin = streams.stdin ?? process.stdin;
    this.maxMessageBytes = streams.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.onHandshake = streams.onHandshake;
    // The framer enforces the limit per line, so the SDK's buffer limit (which counts everything
    // buffered, and closes the transport when crossed) must never trigger.
    this.inner = new StdioServerTransport(this.framed, streams.stdout ?? process.stdout, {
      maxBufferSize: Number.POSITIVE_INFINITY,
    });
    this.framer = new LineFramer(this.maxMessageBytes, {
      lines: (batch) => {
        if (!this.ended) this.framed.push(batch);
      },
      oversized: (line) => this.refuse(line),
    });
  }

  async start(): Promise<void> {
    this.inner.onclose = () => {
      this.detach();
      this.onclose?.();
    };
    this.inner.onmessage = (m) => {
      if (this.onHandshake && "method" in m) {
        if (m.method === "initialize" && "id" in m) this.initializeId = m.id;
        else if (m.method === "tools/call") this.handshakeDone();
      }
      this.onmessage?.(m);
    };
    this.inner.onerror = (error) => {
      const reply = parseFailureReply(error);
      if (reply) void this.inner.send(reply).catch(() => undefined);
      this.onerror?.(error);
    };
    await this.inner.start();
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("error", this.onStdinError);
    if (this.stdin.readableEnded) this.onEnd();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const sent = this.inner.send(message);
    if (this.onHandshake && "id" in message && ("result" in message || "error" in message)) {
      if (message.id !== this.initializeId) void sent.finally(() => this.handshakeDone());
      else setTimeout(() => this.handshakeDone(), HANDSHAKE_GRACE_MS).unref();
    }
    return sent;
  }

  private handshakeDone(): void {
    const done = this.onHandshake;
    this.onHandshake = undefined;
    done?.();
  }

  async close(): Promise<void> {
    this.detach();
    await this.inner.close();
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.framer.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = () => {
    if (this.ended) return;
    this.ended = true;
    this.framed.push(null);
  };

  private readonly onStdinError = (error: Error) => this.framed.destroy(error);

  private detach(): void {
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("error", this.onStdinError);
  }

  private refuse(line: OversizedLine): void {
    const size = `the line is ${describeBytes(line.bytes)}`;
    this.onerror?.(new Error(`skipped a stdin line over ${this.maxMessageBytes} bytes (${size})`));
    const reply = {
      jsonrpc: "2.0",
      id: recoverRequestId(line) ?? null,
      error: { code: -32000, message: messageTooLargeText(size, this.maxMessageBytes) },
    } as unknown as JSONRPCMessage;
    void this.inner.send(reply).catch(() => undefined);
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
export function runStdio(fs: FsServer, opts: { onHandshake?: () => void } = {}): { close(): Promise<void> } {
  const handle = serveStdio(fs.factory, {
    transport: new AnsweringStdioTransport({ onHandshake: opts.onHandshake }),
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
