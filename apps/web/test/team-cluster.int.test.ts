/**
 * Issue 16: two production instances (child processes) over one workspace, one PostgreSQL and one Redis,
 * behind nginx configured from the shipped template; real socket.io clients reach each instance through
 * nginx (which routes windows by client address, so each client picks its instance by its loopback source
 * address). Instance B runs without a watcher (TEXTIDE_WATCH=off), standing in for a network disk whose
 * changes B's kernel never reports: what B's windows learn of A's writes, they learn through Redis.
 * The runs use a scripted OpenAI-compatible server, configured by env as a user would.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AgentEvent, FileChangedEvent, OpenFileEvent } from "@textide/shared";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { io as ioClient, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, collectAgentEvents, waitUntil } from "./agent-helpers.js";
import { notBuiltReason } from "./browser-harness.js";
import { makeWorkspace, sleep, type Workspace } from "./helpers.js";
import { addressesByInstance, getJson, startInstance, startProxy, type TeamInstance } from "./helpers/instances.js";
import { nginxSkipReason, type NginxService } from "./helpers/nginx.js";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./helpers/postgres.js";
import { redisSkipReason, startRedis, type RedisService } from "./helpers/redis.js";

type FakeTurn =
  | { text: string; pauseAfterEvents?: number }
  | { toolCalls: { name: string; args: Record<string, unknown> }[]; text?: string };
interface FakeLlmServer {
  openaiBaseUrl: string;
  push(...turns: FakeTurn[]): void;
  close(): Promise<void>;
}
const FAKE_LLM = new URL("../../../packages/agent/test/fake-llm-server.ts", import.meta.url).href;

const skip = redisSkipReason ?? nginxSkipReason ?? postgresSkipReason() ?? notBuiltReason;
if (skip) console.warn(`[team-cluster] skipped: ${skip}`);

const TOKEN = "team-cluster-test-token-0123456789";
const SPIN = { name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: 30_000 } };
type Started = { runId: string; threadId: string };
type Thread = { threadId: string; state?: string };

interface Window {
  socket: Socket;
  events: AgentEvent[];
  changes: FileChangedEvent[];
  opened: OpenFileEvent[];
  /** `server/status` as received: whether the window's instance reaches the others. */
  status: string[];
}

/** A browser window's socket through nginx, from the source address nginx sends to the wanted instance. */
async function openWindow(proxyUrl: string, localAddress: string, reconnect = false): Promise<Window> {
  const socket = ioClient(proxyUrl, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: reconnect,
    reconnectionDelay: 200,
    reconnectionDelayMax: 1000,
    // Passed on to the websocket (ws): the client address nginx hashes.
    ...({ localAddress } as object),
  });
  const window: Window = { socket, events: collectAgentEvents(socket), changes: [], opened: [], status: [] };
  socket.on("server/status", (e: { cluster: string }) => window.status.push(e.cluster));
  socket.on("file/changed", (e: FileChangedEvent) => window.changes.push(e));
  socket.on("file/open", (e: OpenFileEvent) => window.opened.push(e));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return window;
}

/** Polls `read` until `ok` holds for what it read (20 s at most). */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

/** A REST call straight to one instance (Node's fetch cannot choose its source address for nginx). */
async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe.skipIf(skip !== undefined)("two instances behind nginx on one Redis (issue 16)", () => {
  let llm: FakeLlmServer;
  let redis: RedisService;
  let pg: TestPostgres;
  let ws: Workspace;
  let a: TeamInstance;
  let b: TeamInstance;
  let nginx: NginxService;
  let from: Map<string, string>;
  let onA: Window;
  let onB: Window;

  beforeAll(async () => {
    const { startFakeLlmServer } = (await import(FAKE_LLM)) as {
      startFakeLlmServer: (script: FakeTurn[]) => Promise<FakeLlmServer>;
    };
    [llm, redis, pg, ws] = await Promise.all([startFakeLlmServer([]), startRedis(), startPostgres(), makeWorkspace()]);
    const env = {
      REDIS_URL: redis.url,
      DATABASE_URL: pg.url,
      MCP_HTTP_TOKEN: TOKEN,
      TEXTIDE_MODEL: "openai-compatible:scripted",
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      OPENAI_API_KEY: "test-key-not-secret",
      TEXTIDE_APPROVE: "fs_write_file",
    };
    [a, b] = await Promise.all([
      startInstance(ws, "web-a", env),
      startInstance(ws, "web-b", { ...env, TEXTIDE_WATCH: "off" }),
    ]);
    nginx = await startProxy([a, b]);
    from = await addressesByInstance(nginx.url, [a.id, b.id]);
    onA = await openWindow(nginx.url, from.get(a.id)!, true);
    onB = await openWindow(nginx.url, from.get(b.id)!);
    // Both instances have joined Redis (their health says so) before anything crosses it.
    for (const id of [a.id, b.id]) await redisState(id, "up");
  }, 90_000);

  /** Waits until the instance nginx sends `id`'s clients to reports Redis `state` in its health. */
  const redisState = (id: string, state: "up" | "down") =>
    eventually(
      async () => (await getJson(`${nginx.url}/api/health`, from.get(id))).body as { redis?: string },
      (health) => health.redis === state,
      `${id} reporting Redis ${state}`,
    );

  afterAll(async () => {
    onA?.socket.close();
    onB?.socket.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await nginx?.stop();
    await redis?.remove();
    await pg?.remove();
    await llm?.close();
    await ws?.remove();
  });

  it("a file written through A reaches B's window once, although B watches nothing, and B's quick open finds it", async () => {
    const name = "notes/from-a.md";
    expect(await post(`${a.base}/api/fs/create`, { path: name, type: "file" })).toMatchObject({ status: 201 });
    const seen = (w: Window) => w.changes.filter((e) => e.path === name && e.kind === "add").length;
    await waitUntil(() => seen(onB) === 1 && seen(onA) === 1, 10_000, "the change in both windows");
    // Nothing further arrives: one event per window, not one per instance.
    await sleep(500);
    expect([seen(onA), seen(onB)]).toEqual([1, 1]);
    const search = await getJson(`${nginx.url}/api/files?q=from-a`, from.get(b.id));
    expect(JSON.stringify(search.body)).toContain(name);
  });

  it("system_open_file through A opens the file in B's window and counts the windows of both instances", async () => {
    const res = await post(`${a.base}/api/open-file`, { path: "data/planets.xlsx" });
    expect(res).toMatchObject({ status: 200, body: { path: "data/planets.xlsx" } });
    expect((res.body as { clients: number }).clients).toBeGreaterThanOrEqual(2);
    await waitUntil(() => onB.opened.find((e) => e.path === "data/planets.xlsx"), 10_000, "file/open in B's window");
  });

  it("Stop clicked in B's window stops the run on A, and B's window following the thread sees it end", async () => {
    llm.push({ toolCalls: [SPIN] });
    const run = await call<Started>(onA.socket, "agent/run", { text: "spin in the sandbox" });
    if (!run.ok) throw new Error(run.error.message);
    await waitUntil(
      () => onA.events.find((e) => e.type === "tool_start" && e.runId === run.data.runId),
      20_000,
      "the spinning call on A",
    );
    expect(await call(onB.socket, "agent/follow", { threadId: run.data.threadId })).toMatchObject({ ok: true });
    expect(await call(onB.socket, "agent/cancel", { runId: run.data.runId })).toEqual({
      ok: true,
      data: { runId: run.data.runId },
    });
    for (const w of [onA, onB]) {
      const final = await waitUntil(
        () => w.events.find((e) => e.type === "final" && e.runId === run.data.runId),
        10_000,
        "the cancelled run's final",
      );
      expect(final).toMatchObject({ stopReason: "cancelled" });
    }
    // A run nobody has is still refused, after asking every instance.
    expect(await call(onB.socket, "agent/cancel", { runId: "no-such-run" })).toMatchObject({
      ok: false,
      error: { code: "not_found:run" },
    });
  });

  /** Starts a run on A that asks to write `file`, and waits for it to stop for approval. */
  async function askApprovalOnA(file: string): Promise<Started> {
    llm.push({ toolCalls: [{ name: "fs_write_file", args: { path: file, content: "approved\n" } }] });
    const run = await call<Started>(onA.socket, "agent/run", { text: `write ${file}` });
    if (!run.ok) throw new Error(run.error.message);
    const asked = await waitUntil(
      () => onA.events.find((e) => e.type === "final" && e.runId === run.data.runId),
      20_000,
      "the request for approval",
    );
    expect(asked).toMatchObject({ stopReason: "awaiting_approval" });
    return run.data;
  }

  it("an approval asked on A is answered in B's window: B resumes it from the checkpoint in Postgres", async () => {
    const asked = await askApprovalOnA("notes/approved-on-b.md");
    llm.push({ text: "Written." });
    const resumed = await call<Started>(onB.socket, "agent/approve", { threadId: asked.threadId, decision: "approve" });
    if (!resumed.ok) throw new Error(resumed.error.message);
    // A's window follows the thread: the run on B reaches it through Redis.
    const final = await waitUntil(
      () => onA.events.find((e) => e.type === "final" && e.runId === resumed.data.runId),
      20_000,
      "the resumed run's final in A's window",
    );
    expect(final).toMatchObject({ stopReason: "done", text: "Written." });
    expect(await readFile(path.join(ws.project, "notes/approved-on-b.md"), "utf8")).toBe("approved\n");
  });

  it("two windows on two instances answering one approval at once resume it once", async () => {
    const asked = await askApprovalOnA("notes/approved-once.md");
    llm.push({ text: "Written once." });
    const answers = await Promise.all([
      call<Started>(onB.socket, "agent/approve", { threadId: asked.threadId, decision: "approve" }),
      call<Started>(onA.socket, "agent/approve", { threadId: asked.threadId, decision: "approve" }),
    ]);
    expect(
      answers.filter((r) => r.ok),
      JSON.stringify(answers),
    ).toHaveLength(1);
    const refused = answers.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^conflict:/) as unknown } });
    const resumed = answers.find((r) => r.ok);
    if (!resumed?.ok) throw new Error("unreachable");
    await waitUntil(
      () => onA.events.find((e) => e.type === "final" && e.runId === resumed.data.runId),
      20_000,
      "the resumed run's final",
    );
  });

  /** A real MCP SDK client through nginx; `legacy` opens a 2025-11-25 session, otherwise 2026-07-28 (stateless). */
  async function mcpThroughProxy(
    legacy: boolean,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client(
      { name: "team-cluster-test", version: "1" },
      { versionNegotiation: { mode: legacy ? "legacy" : "auto" } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    return { client, transport };
  }

  it("MCP through nginx: stateless 2026-07-28 requests on any instance, a 2025-11-25 session stays on its own", async () => {
    for (const legacy of [false, true]) {
      const { client, transport } = await mcpThroughProxy(legacy);
      try {
        if (legacy) {
          // The instance that answered initialize named itself in the session id; nginx routes by it.
          expect(transport.sessionId).toMatch(/^web-[ab]~/);
        } else {
          expect(transport.sessionId).toBeUndefined();
        }
        // nginx spreads requests without a session over both instances: several calls reach both.
        for (let i = 0; i < 6; i++) {
          const result = await client.callTool({ name: "fs_list_directory", arguments: { path: "data" } });
          expect(result.isError, JSON.stringify(result)).toBeFalsy();
          expect(JSON.stringify(result.content)).toContain("planets.xlsx");
        }
      } finally {
        await client.close();
      }
    }
  });

  it("Redis stopped: each instance keeps serving its own windows and says so; Redis back: events cross again", async () => {
    await redis.stop();
    await redisState(a.id, "down");
    await redisState(b.id, "down");
    // A's window still hears of A's own changes.
    expect(await post(`${a.base}/api/fs/create`, { path: "notes/while-down.md", type: "file" })).toMatchObject({
      status: 201,
    });
    await waitUntil(() => onA.changes.find((e) => e.path === "notes/while-down.md"), 10_000, "A's own change");
    // The window is told (the IDE shows "other servers unreachable").
    await waitUntil(() => onA.status.at(-1) === "down", 10_000, "server/status down in A's window");
    expect(a.output()).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/);

    await redis.start();
    await redisState(a.id, "up");
    await redisState(b.id, "up");
    expect(a.output()).toMatch(/Redis at \S+ is back/);
    await waitUntil(() => onA.status.at(-1) === "up", 10_000, "server/status up in A's window");
    const before = onB.opened.length;
    await post(`${a.base}/api/open-file`, { path: "notes/while-down.md" });
    await waitUntil(() => onB.opened.length > before, 10_000, "file/open in B's window after Redis returned");
  });

  it("A killed mid-run: its window reconnects through nginx to B, finds the thread and continues it there", async () => {
    llm.push({ toolCalls: [SPIN] });
    const run = await call<Started>(onA.socket, "agent/run", { text: "spin until A dies" });
    if (!run.ok) throw new Error(run.error.message);
    await waitUntil(
      () => onA.events.find((e) => e.type === "tool_start" && e.runId === run.data.runId),
      20_000,
      "the spinning call on A",
    );
    // What B can show of the thread is what A checkpointed (the run's first steps are written as it goes).
    await eventually(
      async () => JSON.stringify((await getJson(`${nginx.url}/api/threads`, from.get(b.id))).body),
      (threads) => threads.includes(run.data.threadId),
      "the thread in the shared store",
    );
    const reconnected = new Promise<void>((resolve) => onA.socket.io.once("reconnect", () => resolve()));
    a.child.kill("SIGKILL");
    await reconnected;
    expect((await getJson(`${nginx.url}/api/health`, from.get(a.id))).body).toMatchObject({ instance: b.id });
    // B notices that A stopped renewing its heartbeat and marks A's run interrupted.
    await waitUntil(() => /instance web-a stopped answering/.test(b.output()), 20_000, "B reporting A gone");
    const { threads } = await eventually(
      async () => (await getJson(`${nginx.url}/api/threads`, from.get(a.id))).body as { threads: Thread[] },
      (list) => list.threads.some((t) => t.threadId === run.data.threadId && t.state === "interrupted"),
      "the thread marked interrupted",
    );
    expect(threads.find((t) => t.threadId === run.data.threadId)).toMatchObject({ state: "interrupted" });

    llm.push({ text: "Continued on B." });
    const next = await call<Started>(onA.socket, "agent/run", { threadId: run.data.threadId, text: "go on" });
    if (!next.ok) throw new Error(next.error.message);
    const final = await waitUntil(
      () => onA.events.find((e) => e.type === "final" && e.runId === next.data.runId),
      20_000,
      "the continued run's final",
    );
    expect(final).toMatchObject({ stopReason: "done", text: "Continued on B." });
  });
});
