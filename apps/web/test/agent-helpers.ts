import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentOptions } from "@textide/agent";
import { ROOT } from "@textide/shared";
import { agentEvent, type AgentEvent } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import type { Socket } from "socket.io-client";
import { createWebServer, type WebServer } from "../server/app.js";
import { silentLogger } from "../server/log.js";
import type { McpCallLog } from "../server/mcp/call-log.js";
import { agentCallCapture } from "../server/mcp/child-stderr.js";
import { createAgentRuntime, type AgentRuntime, type AgentRuntimeDeps } from "../server/runtime/agent-runtime.js";
import { connectClient, makeWorkspace, sleep, type Workspace } from "./helpers.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const MCP_SERVER_BIN = path.join(REPO, "apps/mcp-fs-server/dist/index.js");

export interface AgentServer {
  app: WebServer;
  runtime: AgentRuntime;
  port: number;
  base: string;
  close(): Promise<void>;
}

/**
 * The web server with an agent runtime over the real bundled MCP server (spawned over stdio); with
 * `calls`, the server's tool calls feed that log as in production (`/api/mcp-calls`, `mcp/call`).
 */
export async function startAgentServer(
  ws: Workspace,
  dataDir: string,
  extra: Partial<AgentRuntimeDeps> = {},
  calls?: McpCallLog,
): Promise<AgentServer> {
  const roots = await resolveRoots([
    { name: ROOT.project, path: ws.project, writable: true },
    { name: ROOT.assets, path: ws.assets, writable: true },
  ]);
  let port = 0;
  const runtime = createAgentRuntime({
    projectRoot: ws.project,
    generatedAssets: ws.assets,
    dataDir,
    mcpServerBin: MCP_SERVER_BIN,
    ideUrl: () => `http://127.0.0.1:${port}`,
    toolTimeoutMs: 30_000,
    modelEnv: {},
    ...(calls ? agentCallCapture(calls, silentLogger, "warn") : {}),
    ...extra,
  });
  const app = createWebServer({
    config: { host: "127.0.0.1", ideToken: extra.ideToken, allowedHosts: [] },
    policy: new PathPolicy(roots),
    log: silentLogger,
    runtime,
    calls,
  });
  await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  await app.watcher.ready;
  port = (app.server.address() as AddressInfo).port;
  return { app, runtime, port, base: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export interface AgentSession {
  ws: Workspace;
  data: { dir: string; remove(): Promise<void> };
  /** The running server; a test may close it and put a new one here (close() stops whichever is here). */
  srv: AgentServer;
  /** A socket.io client connected to `srv`, and the agent events it received. */
  client: Socket;
  events: AgentEvent[];
  close(): Promise<void>;
}

/** A workspace, a data dir and startAgentServer over them, with one connected client collecting events. */
export async function startAgentSession(
  extra: Partial<AgentRuntimeDeps> = {},
  calls?: McpCallLog,
): Promise<AgentSession> {
  const ws = await makeWorkspace();
  const data = await makeDataDir();
  try {
    const srv = await startAgentServer(ws, data.dir, extra, calls);
    const client = await connectClient(srv.base);
    const session: AgentSession = {
      ws,
      data,
      srv,
      client,
      events: collectAgentEvents(client),
      async close() {
        session.client.close();
        await session.srv.close();
        await ws.remove();
        await data.remove();
      },
    };
    return session;
  } catch (err) {
    await ws.remove();
    await data.remove();
    throw err;
  }
}

export async function makeDataDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "textide-data-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export type AckReply<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };

/** Emits and waits for the ack. */
export function call<T>(socket: Socket, event: string, payload: unknown, ms = 15_000): Promise<AckReply<T>> {
  return socket.timeout(ms).emitWithAck(event, payload) as Promise<AckReply<T>>;
}

/** Collects `agent/event`s (validated against the shared schema) on a socket. */
export function collectAgentEvents(socket: Socket): AgentEvent[] {
  const events: AgentEvent[] = [];
  socket.on("agent/event", (e: unknown) => events.push(agentEvent.parse(e)));
  return events;
}

export async function waitUntil<T>(probe: () => T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// The agent package's scripted model (its tests' only fake), loaded at run time: it lives outside this
// app's rootDir, so a static import would pull it into apps/web's type check.
export type ToolCalls = { toolCalls: { name: string; args: Record<string, unknown> }[] };
export type Turn = string | ToolCalls | ((messages: { getType(): string; content: unknown }[]) => string | ToolCalls);
const FAKE_MODEL = new URL("../../../packages/agent/test/fake-model.ts", import.meta.url).href;

/** A scripted model where each thread's last user message picks its script (the last turn repeats). */
export async function routedModel(scripts: Record<string, Turn[]>): Promise<AgentOptions["model"]> {
  const { ScriptedChatModel } = (await import(FAKE_MODEL)) as {
    ScriptedChatModel: new (script: Turn[]) => AgentOptions["model"];
  };
  const step = new Map<string, number>();
  return new ScriptedChatModel([
    (messages) => {
      const lastUser = [...messages].reverse().find((m) => m.getType() === "human");
      const key = typeof lastUser?.content === "string" ? lastUser.content : "";
      const script = scripts[key] ?? ["(no script)"];
      const i = step.get(key) ?? 0;
      step.set(key, i + 1);
      const turn = script[Math.min(i, script.length - 1)]!;
      return typeof turn === "function" ? turn(messages) : turn;
    },
  ]);
}
