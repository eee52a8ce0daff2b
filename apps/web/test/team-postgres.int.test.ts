import { randomUUID } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import path from "node:path";
import { createAgent, NodeSqliteSaver, PostgresThreadStore, THREAD_DB_DOWN } from "@textide/agent";
import type { AgentEvent } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../server/config.js";
import { isAppError } from "../server/errors.js";
import type { Logger } from "../server/log.js";
import { createAgentRuntime, type AgentRuntime, type AgentRuntimeDeps } from "../server/runtime/agent-runtime.js";
import { call, makeDataDir, MCP_SERVER_BIN, routedModel, startAgentServer } from "./agent-helpers.js";
import { connectClient, makeWorkspace, request, type Workspace } from "./helpers.js";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./helpers/postgres.js";

// Real PostgreSQL (Debian's binaries, a temp dir, a free port), the real offline planner and the real bundled
// MCP server over stdio: several runtimes on one database stand for several instances.
const skip = postgresSkipReason();
const LIST = "list the files in data";

let pg: TestPostgres;
let ws: Workspace;
let data: Awaited<ReturnType<typeof makeDataDir>>;
const open: AgentRuntime[] = [];

beforeAll(async () => {
  if (skip) return;
  [pg, ws, data] = await Promise.all([startPostgres(), makeWorkspace(), makeDataDir()]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(open.map((r) => r.close()));
  await Promise.allSettled([pg?.remove(), ws?.remove(), data?.remove()]);
}, 60_000);

/** A runtime ("instance") on the test database, or on `databaseUrl`/SQLite when given. */
function instance(instanceId: string, extra: Partial<AgentRuntimeDeps> = {}): AgentRuntime {
  const rt = createAgentRuntime({
    projectRoot: ws.project,
    generatedAssets: ws.assets,
    dataDir: data.dir,
    mcpServerBin: MCP_SERVER_BIN,
    modelEnv: {},
    toolTimeoutMs: 30_000,
    databaseUrl: pg.url,
    instanceId,
    ...extra,
  });
  open.push(rt);
  return rt;
}

let shared: [AgentRuntime, AgentRuntime] | undefined;
/** Two instances for the tests that need nothing special of them (each spawns an MCP server on first use). */
const pair = (): [AgentRuntime, AgentRuntime] => (shared ??= [instance("pg-one"), instance("pg-two")]);

/** Starts a run and waits for its final event (or its error event, when it fails). */
async function runToEnd(
  rt: AgentRuntime,
  text: string,
  user: string,
  threadId?: string,
  onEvent: (e: AgentEvent) => void = () => undefined,
): Promise<{ threadId: string; final: AgentEvent }> {
  let finish: (e: AgentEvent) => void = () => undefined;
  const final = new Promise<AgentEvent>((resolve) => (finish = resolve));
  const handle = await rt.start(
    { threadId, text },
    (e) => {
      onEvent(e);
      if (e.type === "final" || e.type === "error") finish(e);
    },
    user,
  );
  return { threadId: handle.threadId, final: await final };
}

const userTexts = async (rt: AgentRuntime, threadId: string, user: string) =>
  (await rt.history(threadId, user)).filter((m) => m.role === "user").map((m) => m.content);

/** A TCP hop to Postgres that a test can cut, so one runtime loses its database as a crashed host would. */
async function cuttableLink(
  port: number,
): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((inbound) => {
    if (cut) return inbound.destroy();
    const outbound = connect(port, "127.0.0.1");
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const linkPort = typeof address === "object" && address ? address.port : 0;
  return {
    url: `postgres://postgres@127.0.0.1:${linkPort}/postgres`,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(skip)("threads on Postgres", () => {
  it("keeps threads and checkpoints across a restart, and a second instance sees them", async () => {
    const a = instance("pg-a");
    const { threadId, final } = await runToEnd(a, LIST, "local");
    expect(final).toMatchObject({ type: "final", stopReason: "done" });
    const before = await a.history(threadId, "local");
    expect(before.filter((m) => m.role === "user").map((m) => m.content)).toEqual([LIST]);
    await a.close();

    const restarted = instance("pg-a");
    const b = instance("pg-b");
    for (const rt of [restarted, b]) {
      const listed = (await rt.threads("local")).find((t) => t.threadId === threadId);
      expect(listed).toMatchObject({ title: LIST, state: "idle" });
      expect(await rt.history(threadId, "local")).toEqual(before);
    }
    // Continued on the other instance, read back on the first.
    const next = await runToEnd(b, LIST, "local", threadId);
    expect(next.final).toMatchObject({ stopReason: "done" });
    expect(await userTexts(restarted, threadId, "local")).toEqual([LIST, LIST]);
  }, 60_000);

  it("lists, reads, continues and cancels threads only for their owner", async () => {
    const [rt] = pair();
    const alice = await runToEnd(rt, LIST, "alice");
    const aliceIds = (await rt.threads("alice")).map((t) => t.threadId);
    expect(aliceIds).toContain(alice.threadId);
    expect((await rt.threads("bob")).map((t) => t.threadId)).not.toContain(alice.threadId);
    await expect(rt.history(alice.threadId, "bob")).rejects.toMatchObject({ type: "not_found" });
    await expect(rt.start({ threadId: alice.threadId, text: LIST }, () => undefined, "bob")).rejects.toMatchObject({
      type: "not_found",
    });
    // Bob cannot stop Alice's run; Alice can.
    let runId = "";
    const running = runToEnd(rt, LIST, "alice", alice.threadId, (e) => {
      if (e.type === "run_started") runId = e.runId;
    });
    await expect.poll(() => runId, { timeout: 10_000 }).not.toBe("");
    expect(rt.cancel(runId, "bob")).toBe(false);
    await running;
    expect(await userTexts(rt, alice.threadId, "alice")).toEqual([LIST, LIST]);
  }, 60_000);

  it("gives a new thread id claimed by two instances at once exactly one owner", async () => {
    const [one, two] = [new PostgresThreadStore(pg.url), new PostgresThreadStore(pg.url)];
    try {
      await Promise.all([one.ready(), two.ready()]);
      const ids = Array.from({ length: 20 }, () => randomUUID());
      const results = await Promise.all(
        ids.map((id) => Promise.all([one.claim(id, "alice", "a"), two.claim(id, "bob", "b")])),
      );
      for (const [i, [byAlice, byBob]] of results.entries()) {
        expect(byAlice !== byBob, `thread ${i}: alice ${byAlice}, bob ${byBob}`).toBe(true);
        expect(await one.ownerOf(ids[i]!)).toBe(byAlice ? "alice" : "bob");
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }

    // Through two runtimes: one run starts, the other user is refused.
    const threadId = randomUUID();
    const [x, y] = pair();
    const outcomes = await Promise.allSettled([
      runToEnd(x, LIST, "carol", threadId),
      runToEnd(y, LIST, "dave", threadId),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === "rejected");
    expect(isAppError(refused?.reason) && refused.reason.type).toBe("not_found");
  }, 60_000);

  it("marks a run cut off with its instance interrupted; a new message continues the thread", async () => {
    const link = await cuttableLink(pg.port);
    const crashing = instance("pg-crash", { databaseUrl: link.url });
    const { threadId } = await runToEnd(crashing, LIST, "erin");
    // The second run loses the database as it starts: its "idle" at the end never arrives.
    await runToEnd(crashing, LIST, "erin", threadId, (e) => {
      if (e.type === "run_started") link.cut();
    }).catch(() => undefined);
    const survivor = instance("pg-survivor");
    expect((await survivor.threads("erin")).find((t) => t.threadId === threadId)?.state).toBe("running");

    // The instance comes back under its id: it marks its own lost run interrupted on start-up.
    const back = instance("pg-crash");
    expect((await back.threads("erin")).find((t) => t.threadId === threadId)?.state).toBe("interrupted");
    const texts = await userTexts(back, threadId, "erin");
    expect(texts[0]).toBe(LIST);

    const next = await runToEnd(survivor, "continue: list the files in data", "erin", threadId);
    expect(next.final).toMatchObject({ stopReason: "done" });
    expect(await userTexts(survivor, threadId, "erin")).toEqual([...texts, "continue: list the files in data"]);
    expect((await survivor.threads("erin")).find((t) => t.threadId === threadId)?.state).toBe("idle");
    link.cut();
    await link.close();
  }, 60_000);

  it("marks another instance's running threads interrupted, and only those", async () => {
    const [rt] = pair();
    const gone = (await runToEnd(rt, LIST, "frank")).threadId;
    const alive = (await runToEnd(rt, LIST, "frank")).threadId;
    const store = new PostgresThreadStore(pg.url);
    const stateOf = async (id: string) => (await rt.threads("frank")).find((t) => t.threadId === id)?.state;
    try {
      // Runs under way on two other instances (as their markRun at launch leaves them).
      await store.markRun(gone, "running", "host-gone");
      await store.markRun(alive, "running", "host-alive");
      expect(await rt.markInterrupted("host-gone")).toEqual([gone]);
      // A late end reported under another instance id does not overwrite the mark.
      await store.markRun(gone, "idle", "host-alive");
      expect([await stateOf(gone), await stateOf(alive)]).toEqual(["interrupted", "running"]);
      expect(await rt.markInterrupted("host-gone")).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("ends a run that loses its database with a clear error; the thread is idle again once it answers", async () => {
    const link = await cuttableLink(pg.port);
    try {
      const rt = instance("pg-lost", { databaseUrl: link.url });
      const { threadId } = await runToEnd(rt, LIST, "hal");
      const saved = await rt.history(threadId, "hal");
      // Cut as the run starts: its next checkpoint write and its "idle" at the end both fail.
      const cut = await runToEnd(rt, LIST, "hal", threadId, (e) => {
        if (e.type === "run_started") link.cut();
      });
      expect(cut.final).toMatchObject({ type: "error", code: "unavailable:thread" });
      expect(cut.final.type === "error" && cut.final.message).toMatch(/thread database is not reachable/);
      await rt.idle();
      link.restore();
      await expect.poll(async () => (await rt.threads("hal")).find((t) => t.threadId === threadId)?.state).toBe("idle");
      expect(await rt.history(threadId, "hal")).toEqual(saved);
    } finally {
      link.cut();
      await link.close();
    }
  }, 60_000);

  it("answers 'unavailable' while Postgres is down, logs it once, and works again when it is back", async () => {
    const lines: string[] = [];
    const log: Logger = {
      info: (m) => lines.push(`info ${m}`),
      warn: (m) => lines.push(`warn ${m}`),
      error: (m) => lines.push(`error ${m}`),
    };
    // The whole server (REST and socket.io) in loopback mode, whose user is "local".
    const srv = await startAgentServer(ws, data.dir, { databaseUrl: pg.url, instanceId: "pg-outage", log });
    const client = await connectClient(srv.base);
    try {
      const { threadId } = await runToEnd(srv.runtime, LIST, "local");
      const saved = (await request(srv.port, "GET", `/api/threads/${threadId}`)).json() as { messages: unknown[] };
      expect(saved.messages.length).toBeGreaterThan(1);

      await pg.stop();
      try {
        for (const url of ["/api/threads", `/api/threads/${threadId}`]) {
          const r = await request(srv.port, "GET", url);
          expect(r.status).toBe(503);
          expect((r.json() as { error: object }).error).toMatchObject({
            code: "unavailable:thread",
            message: THREAD_DB_DOWN,
          });
        }
        expect(await call(client, "agent/run", { threadId, text: LIST })).toEqual({
          ok: false,
          error: { code: "unavailable:thread", message: THREAD_DB_DOWN },
        });
        expect((await request(srv.port, "GET", "/api/health")).status).toBe(200);
        expect(lines.filter((l) => l.includes("thread database unreachable"))).toHaveLength(1);
      } finally {
        await pg.start();
      }
      const listed = (await request(srv.port, "GET", "/api/threads")).json() as { threads: { threadId: string }[] };
      expect(listed.threads.map((t) => t.threadId)).toContain(threadId);
      expect((await request(srv.port, "GET", `/api/threads/${threadId}`)).json()).toEqual(saved);
      expect(lines).toContain("info thread database reachable again");
      const next = await runToEnd(srv.runtime, LIST, "local", threadId);
      expect(next.final).toMatchObject({ stopReason: "done" });
    } finally {
      client.close();
      await srv.close();
    }
  }, 60_000);
});

describe.skipIf(skip)("Postgres killed", () => {
  it("keeps what it acknowledged through a crash (SIGKILL); the runtime reconnects after the restart", async () => {
    const [rt] = pair();
    const { threadId } = await runToEnd(rt, LIST, "ivan");
    const saved = await rt.history(threadId, "ivan");
    await pg.kill();
    await pg.start();
    // The first request may meet a connection the crash broke; the pool replaces it.
    await expect
      .poll(() =>
        rt.threads("ivan").then(
          (list) => list.map((t) => t.threadId),
          () => [],
        ),
      )
      .toContain(threadId);
    expect(await rt.history(threadId, "ivan")).toEqual(saved);
    expect((await runToEnd(rt, LIST, "ivan", threadId)).final).toMatchObject({ stopReason: "done" });
  }, 60_000);
});

describe("DATABASE_URL", () => {
  it("takes a postgres:// or postgresql:// URL and refuses anything else with the variable named", () => {
    expect(loadConfig({ DATABASE_URL: "postgresql://textide:s%40cret@db:5432/textide" }).databaseUrl).toBe(
      "postgresql://textide:s%40cret@db:5432/textide",
    );
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: "" }).databaseUrl).toBeUndefined(); // as a copied .env.example leaves it
    expect(() => loadConfig({ DATABASE_URL: "mysql://db/textide" })).toThrow(/DATABASE_URL: must be a postgres:\/\//);
  });
});

describe("threads on SQLite", () => {
  it("migrates a threads.sqlite from before the metadata table: its threads list as the local user's", async () => {
    const dir = await makeDataDir();
    const workspace = await makeWorkspace();
    try {
      // The old code's file: the checkpoint tables only, written through the saver as it was.
      const saver = NodeSqliteSaver.open(path.join(dir.dir, "threads.sqlite"));
      const old = createAgent({
        model: await routedModel({ "an old request": ["an old answer"] }),
        modelInfo: { id: "scripted", label: "Scripted", offline: true },
        tools: [],
        checkpointer: saver,
      });
      await old.run({ threadId: "old-thread", text: "an old request" });
      expect(saver.db.prepare("SELECT name FROM sqlite_master WHERE name = 'textide_threads'").get()).toBeUndefined();
      saver.close();

      const rt = createAgentRuntime({
        projectRoot: workspace.project,
        generatedAssets: workspace.assets,
        dataDir: dir.dir,
        mcpServerBin: MCP_SERVER_BIN,
        modelEnv: {},
      });
      try {
        expect(await rt.threads()).toEqual([
          expect.objectContaining({ threadId: "old-thread", title: "an old request", state: "idle" }),
        ]);
        expect(await rt.threads("someone-else")).toEqual([]);
        expect(await userTexts(rt, "old-thread", "local")).toEqual(["an old request"]);
        const next = await runToEnd(rt, LIST, "local", "old-thread");
        expect(next.final).toMatchObject({ stopReason: "done" });
        expect(await userTexts(rt, "old-thread", "local")).toEqual(["an old request", LIST]);
      } finally {
        await rt.close();
      }
    } finally {
      await Promise.all([dir.remove(), workspace.remove()]);
    }
  }, 60_000);
});
