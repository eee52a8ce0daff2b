import { readdirSync, readFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJsOutput, TOOL, type RunJsOutput } from "@textide/shared";
import type { ExecPool } from "../src/exec/pool.js";
import { createLogger } from "../src/log.js";
import { createFsServer, type FsServer } from "../src/server.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

/** One server (one runner pool) with several MCP clients, each on its own connection. */
interface Shared {
  ws: TmpWorkspace;
  fs: FsServer;
  pool: ExecPool;
  auditLog: string;
  connect(name: string): Promise<Client>;
  close(): Promise<void>;
}

async function startShared(runners: number): Promise<Shared> {
  const ws = await makeWorkspace();
  const auditLog = path.join(ws.base, "audit", "exec.jsonl");
  const fs = await createFsServer({
    projectRoot: ws.project,
    assetsRoot: ws.assets,
    log: createLogger("warn", new Writable({ write: (_c, _e, cb) => cb() })),
    exec: { auditLog, sandbox: "auto", runners },
  });
  const closers: (() => Promise<void>)[] = [];
  return {
    ws,
    fs,
    pool: fs.ctx.exec!.pool,
    auditLog,
    async connect(name) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const handle = serveStdio(fs.factory, { transport: serverSide });
      const client = new Client({ name, version: "1.0.0" });
      await client.connect(clientSide);
      closers.push(async () => {
        await client.close();
        await handle.close();
      });
      return client;
    },
    async close() {
      for (const c of closers) await c();
      await fs.close();
      await ws.cleanup();
    },
  };
}

type Run = RunJsOutput & { isError: boolean };

async function run(
  client: Client,
  code: string,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Run> {
  const r = await client.callTool(
    { name: TOOL.runJs, arguments: { code, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) } },
    { ...(opts.signal ? { signal: opts.signal } : {}), timeout: 60_000 },
  );
  return { ...runJsOutput.parse(r.structuredContent), isError: r.isError === true };
}

/** Code that keeps its runner busy until `generated_assets/<name>` exists. */
const waitFor = (name: string, answer: string) => `
for (;;) {
  const files = await listFiles("generated_assets");
  if (files.some((f) => f.endsWith(${JSON.stringify(name)}))) return ${JSON.stringify(answer)};
}`;

/** Pids of this process's children: the pool's runners (bwrap or node). */
function childPids(): Set<number> {
  const pids = new Set<number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const kids = readFileSync(`/proc/${process.pid}/task/${tid}/children`, "utf8").trim();
    for (const k of kids ? kids.split(" ") : []) pids.add(Number(k));
  }
  return pids;
}

/** Polls until `check` holds. */
async function until(check: () => boolean, what: string, pool: ExecPool): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(pool.stats())}`);
}

describe("exec_run_js runs side by side (pool of 2 real runners)", () => {
  let s: Shared;
  let a: Client;
  let b: Client;

  beforeAll(async () => {
    s = await startShared(2);
    a = await s.connect("client-a");
    b = await s.connect("client-b");
  });
  afterAll(() => s.close());

  it("a long run of one client does not hold up another client's trivial run", async () => {
    let aDone = false;
    const long = run(a, waitFor("release-1.txt", "A released"), { timeoutMs: 30_000 }).then((r) => {
      aDone = true;
      return r;
    });
    await until(() => s.pool.stats().busy === 1, "A's run to start", s.pool);

    const quick = await run(b, "return 'B'");
    expect(quick).toMatchObject({ ok: true, result: "B" });
    expect(quick.queueMs).toBeGreaterThanOrEqual(0);
    // B came back while A's run was still going.
    expect(aDone).toBe(false);
    expect(s.pool.stats().busy).toBeGreaterThanOrEqual(1);

    await writeFile(path.join(s.ws.assets, "release-1.txt"), "go");
    const released = await long;
    expect(released).toMatchObject({ ok: true, result: "A released" });
    expect(released.queueMs).toBeGreaterThanOrEqual(0);
  });

  it("keeps serving another client while a run overstays its deadline, and after it", async () => {
    let killedDone = false;
    // A single builtin call that ignores the isolate's timeout for a while (the runner may be killed).
    const wedged = run(a, "return new Array(5e8).fill(0).length", { timeoutMs: 500 }).then((r) => {
      killedDone = true;
      return r;
    });
    await until(() => s.pool.stats().busy === 1, "the wedged run to start", s.pool);
    expect(await run(b, "return 6 * 7")).toMatchObject({ ok: true, result: 42 });
    expect(killedDone).toBe(false);

    const killed = await wedged;
    // Stopped by the isolate's own deadline or, if the builtin could not be interrupted, by the kill.
    expect(killed).toMatchObject({ ok: false, isError: true, error: { kind: "timeout" } });

    const after = await Promise.all([
      run(a, "return 'a1'"),
      run(b, "return 'b1'"),
      run(a, "return 'a2'"),
      run(b, "return 'b2'"),
    ]);
    expect(after.map((r) => r.result)).toEqual(["a1", "b1", "a2", "b2"]);
    const st = s.pool.stats();
    expect(st.starting + st.idle + st.busy).toBeLessThanOrEqual(2);
  });

  it("cancels one client's run without touching the other client's run", async () => {
    const controller = new AbortController();
    const cancelled = run(a, waitFor("never.txt", "never"), { timeoutMs: 30_000, signal: controller.signal });
    await until(() => s.pool.stats().busy === 1, "A's run to start", s.pool);
    const other = run(b, waitFor("release-3.txt", "B released"), { timeoutMs: 30_000 });
    await until(() => s.pool.stats().busy === 2, "B's run to start", s.pool);
    const before = childPids();

    controller.abort();
    await expect(cancelled).rejects.toThrow();
    // A's runner is killed and replaced; B's run goes on, and the pool serves A again meanwhile.
    expect(await run(a, "return 'again'")).toMatchObject({ ok: true, result: "again" });
    const after = childPids();
    expect([...before].filter((p) => !after.has(p))).toHaveLength(1);
    expect([...after].filter((p) => !before.has(p))).toHaveLength(1);
    await writeFile(path.join(s.ws.assets, "release-3.txt"), "go");
    expect(await other).toMatchObject({ ok: true, result: "B released" });
  });
});

describe("exec_run_js takes turns between clients (pool of 1 real runner)", () => {
  let s: Shared;
  let a: Client;
  let b: Client;

  beforeAll(async () => {
    s = await startShared(1);
    a = await s.connect("client-a");
    b = await s.connect("client-b");
  });
  afterAll(() => s.close());

  it("serves a second client's single run before the first client's backlog, and reports the wait", async () => {
    await rm(s.auditLog, { force: true });
    const order: string[] = [];
    const track = (p: Promise<Run>, label: string) =>
      p.then((r) => {
        order.push(label);
        return r;
      });
    const blocker = track(run(a, waitFor("release-2.txt", "A0"), { timeoutMs: 30_000 }), "A0");
    await until(() => s.pool.stats().busy === 1, "A's first run to start", s.pool);
    const backlog = [1, 2, 3, 4, 5].map((i) => track(run(a, `return "A${i}"`), `A${i}`));
    await until(() => s.pool.stats().queued === 5, "A's backlog to queue", s.pool);
    const single = track(run(b, `return "B"`), "B");
    await until(() => s.pool.stats().queued === 6, "B's run to queue", s.pool);

    await writeFile(path.join(s.ws.assets, "release-2.txt"), "go");
    const results = await Promise.all([blocker, ...backlog, single]);
    expect(results.every((r) => r.ok)).toBe(true);
    // Round robin: A's blocker, then one run of A's backlog, then B — not B after all of A's runs.
    expect(order).toEqual(["A0", "A1", "B", "A2", "A3", "A4", "A5"]);
    const b1 = results[6]!;
    expect(b1.result).toBe("B");
    expect(b1.queueMs).toBeGreaterThan(0);

    // The audit log has the wait of every run, and tells the two callers apart (hashed).
    const lines = (await readFile(s.auditLog, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { caller: string; codePreview: string; timings: { queueMs: number } });
    expect(lines).toHaveLength(7);
    for (const l of lines) expect(typeof l.timings.queueMs).toBe("number");
    const callerOf = (needle: string) => lines.find((l) => l.codePreview.includes(needle))!.caller;
    expect(callerOf('"B"')).toMatch(/^[0-9a-f]{12}$/);
    expect(callerOf('"A1"')).toBe(callerOf('"A5"'));
    expect(callerOf('"A1"')).not.toBe(callerOf('"B"'));
  });
});
