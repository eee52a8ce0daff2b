import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdio, type ServerSpec } from "./server-config.js";

export interface ServerStatus {
  name: string;
  connected: boolean;
  error?: string;
}

export interface HubLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface HubOptions {
  /** Receives a stdio server's stderr, chunk by chunk, instead of the logger (e.g. to parse its log lines). */
  onStderr?: (server: string, chunk: Buffer) => void;
}

const CONNECT_TIMEOUT_MS = 15_000;

/** One MCP server: we own the SDK Client (connect, reconnect, close) instead of a multi-client wrapper. */
class Connection {
  client: Client | undefined;
  error: string | undefined;
  private connecting: Promise<Client> | undefined;
  /** Bumped by close(): a connect already under way must not leave a live client behind. */
  private epoch = 0;

  constructor(
    readonly name: string,
    readonly spec: ServerSpec,
    private readonly log: HubLogger,
    private readonly opts: HubOptions,
  ) {}

  connect(): Promise<Client> {
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Drops a broken client; the next call reconnects. */
  async reset(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    await old?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.epoch++;
    const pending = this.connecting;
    await this.reset();
    await pending?.catch(() => undefined);
  }

  private async open(): Promise<Client> {
    const epoch = this.epoch;
    const client = new Client({ name: "textide-agent", version: "0.1.0" });
    const transport = this.transport();
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (err) {
      this.error = (err as Error).message;
      await transport.close().catch(() => undefined);
      throw err;
    }
    if (epoch !== this.epoch) {
      await client.close().catch(() => undefined);
      throw new Error(`MCP server "${this.name}" was closed while connecting`);
    }
    this.error = undefined;
    this.client = client;
    this.log.info({ server: this.name }, "MCP server connected");
    return client;
  }

  private transport(): Transport {
    const spec = this.spec;
    if (isStdio(spec)) {
      const t = new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        // A server's env extends the inherited safe environment instead of replacing it.
        env: { ...getDefaultEnvironment(), ...spec.env },
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        stderr: "pipe",
      });
      // Drained so a chatty server cannot block on a full pipe (and shutdown is not delayed).
      const onStderr = this.opts.onStderr;
      t.stderr?.on("data", (d: Buffer) =>
        onStderr
          ? onStderr(this.name, d)
          : this.log.info({ server: this.name, stderr: String(d).trimEnd().slice(0, 2000) }, "MCP server stderr"),
      );
      return t;
    }
    const requestInit = spec.headers ? { headers: spec.headers } : undefined;
    return spec.transport === "sse"
      ? new SSEClientTransport(new URL(spec.url), requestInit ? { requestInit } : undefined)
      : new StreamableHTTPClientTransport(new URL(spec.url), requestInit ? { requestInit } : undefined);
  }
}

/**
 * The MCP servers an agent uses. A server that fails to connect is reported and skipped; the
 * others work. Clients reconnect lazily after a transport failure.
 */
export class McpHub {
  private readonly connections: Connection[];

  constructor(servers: Record<string, ServerSpec>, log: HubLogger, opts: HubOptions = {}) {
    this.connections = Object.entries(servers).map(([name, spec]) => new Connection(name, spec, log, opts));
  }

  get names(): string[] {
    return this.connections.map((c) => c.name);
  }

  async connectAll(): Promise<ServerStatus[]> {
    return Promise.all(
      this.connections.map(async (c) => {
        try {
          await c.connect();
          return { name: c.name, connected: true };
        } catch (err) {
          return { name: c.name, connected: false, error: (err as Error).message };
        }
      }),
    );
  }

  status(): ServerStatus[] {
    return this.connections.map((c) => ({
      name: c.name,
      connected: c.client !== undefined,
      ...(c.error ? { error: c.error } : {}),
    }));
  }

  /** A connected client for `server`, reconnecting if the previous one died. */
  async client(server: string): Promise<Client> {
    const c = this.connection(server);
    return c.client ?? c.connect();
  }

  async reset(server: string): Promise<void> {
    await this.connection(server).reset();
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private connection(server: string): Connection {
    const c = this.connections.find((x) => x.name === server);
    if (!c) throw new Error(`Unknown MCP server "${server}"`);
    return c;
  }
}
