import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { ExecPool, FairQueue, type ExecPoolOptions, type PoolOutcome } from "../src/exec/pool.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");
let pool: ExecPool | undefined;

function makePool(opts: Partial<ExecPoolOptions> = {}): ExecPool {
  const made = new ExecPool({
    projectRoot: "/tmp",
    assetsRoot: "/tmp",
    sandbox: "none",
    log: createLogger("silent"),
    runnerPath: path.join(fixtures, "pool-runner.mjs"),
    ...opts,
  });
  pool = made;
  return made;
}

const current = (): ExecPool => {
  if (!pool) throw new Error("no pool");
  return pool;
};

const run = (code: string, opts: { caller?: string; signal?: AbortSignal; timeoutMs?: number } = {}) =>
  current().run(
    { code, timeoutMs: opts.timeoutMs ?? 30_000, memoryMb: 64, correlationId: code },
    opts.signal,
    opts.caller,
  );

/** Polls until `check` holds (the pool's state changes on child-process events). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(current().stats())}`);
}

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe("FairQueue", () => {
  it("takes turns between callers, first in first out within one caller", () => {
    const q = new FairQueue<string>();
    for (const item of ["a1", "a2", "a3", "a4"]) q.push("A", item);
    q.push("B", "b1");
    q.push("C", "c1");
    q.push("B", "b2");
    const order: string[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) order.push(x);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
    expect(q.size).toBe(0);
  });

  it("removes a queued item and forgets an emptied lane", () => {
    const q = new FairQueue<string>();
    q.push("A", "a1");
    q.push("B", "b1");
    expect(q.remove("A", "a1")).toBe(true);
    expect(q.remove("A", "a1")).toBe(false);
    q.push("A", "a2");
    expect([q.shift(), q.shift(), q.shift()]).toEqual(["b1", "a2", undefined]);
  });
});

describe("ExecPool scheduling", () => {
  it("runs calls side by side: a run that never ends does not hold up the next one", async () => {
    makePool({ size: 2 });
    const controller = new AbortController();
    let hungDone = false;
    const hung = run("hang", { caller: "A", signal: controller.signal }).then((o) => {
      hungDone = true;
      return o;
    });
    const quick = await run("quick", { caller: "B" });
    expect(quick).toMatchObject({ ok: true, resultJson: '"quick"' });
    expect(hungDone).toBe(false);
    expect(current().stats()).toMatchObject({ busy: 1, queued: 0 });
    controller.abort();
    expect((await hung).error?.message).toMatch(/Cancelled/);
  });

  it("starts runners only as calls queue up, never more than its size", async () => {
    makePool({ size: 2 });
    expect(current().stats()).toEqual({ starting: 0, idle: 0, busy: 0, queued: 0 });
    const controller = new AbortController();
    const runs = ["hang", "hang", "hang", "hang"].map((code) => run(code, { signal: controller.signal }));
    await until(() => current().stats().busy === 2, "two busy runners");
    expect(current().stats()).toEqual({ starting: 0, idle: 0, busy: 2, queued: 2 });
    controller.abort();
    const outcomes = await Promise.all(runs);
    expect(outcomes.every((o) => /Cancelled/.test(o.error?.message ?? ""))).toBe(true);
    expect(current().stats().queued).toBe(0);
  });

  it("serves a second caller's run before the first caller's backlog", async () => {
    makePool({ size: 1 });
    const order: string[] = [];
    const track = (p: Promise<PoolOutcome>, label: string) =>
      p.then((o) => {
        order.push(label);
        return o;
      });
    const first = track(run("sleep:200", { caller: "A" }), "A0");
    await until(() => current().stats().busy === 1, "the first run to start");
    const backlog = [1, 2, 3, 4, 5].map((i) => track(run(`a${i}`, { caller: "A" }), `A${i}`));
    const b = track(run("b", { caller: "B" }), "B");
    const outcomes = await Promise.all([first, ...backlog, b]);
    expect(order).toEqual(["A0", "A1", "B", "A2", "A3", "A4", "A5"]);
    // Every run waited for the one before it, and says so.
    expect(outcomes.every((o) => o.ok && o.queueMs >= 0)).toBe(true);
    expect((await b).queueMs).toBeGreaterThan(0);
  });

  it("times out a wedged run, replaces its runner and keeps serving side by side", async () => {
    makePool({ size: 2 });
    const wedged = run("hang", { caller: "A", timeoutMs: 100 });
    // While the wedged runner waits for its kill, the other runner serves another caller.
    expect((await run("during", { caller: "B" })).resultJson).toBe('"during"');
    const killed = await wedged;
    expect(killed.error?.kind).toBe("timeout");
    expect(killed.error?.message).toMatch(/killed/);
    const after = await Promise.all(["x", "y", "z", "w"].map((code, i) => run(code, { caller: `C${i}` })));
    expect(after.map((o) => o.resultJson)).toEqual(['"x"', '"y"', '"z"', '"w"']);
    const s = current().stats();
    expect(s.starting + s.idle + s.busy).toBeLessThanOrEqual(2);
  });

  it("lets an extra runner go after it idled, and keeps one warm", async () => {
    makePool({ size: 2, idleMs: 150 });
    await Promise.all([run("sleep:100"), run("sleep:100")]);
    await until(() => current().stats().idle === 2, "two idle runners");
    await until(() => current().stats().idle === 1, "the extra runner to stop");
    await new Promise((r) => setTimeout(r, 300));
    expect(current().stats()).toEqual({ starting: 0, idle: 1, busy: 0, queued: 0 });
    expect((await run("still")).resultJson).toBe('"still"');
  });

  it("fails one queued run per failed start and does not spin restarting a runner that cannot start", async () => {
    makePool({ size: 2, runnerPath: path.join(fixtures, "failing-runner.mjs") });
    current().warm();
    await until(() => current().stats().starting === 0, "the warm-up start to fail");
    const outcomes = await Promise.all([run("a"), run("b"), run("c")]);
    for (const o of outcomes) expect(o.error?.message).toMatch(/start: the sandbox runner exited/);
    expect(current().stats()).toEqual({ starting: 0, idle: 0, busy: 0, queued: 0 });
  });

  it("answers queued calls when it closes", async () => {
    makePool({ size: 1 });
    const running = run("hang");
    const queued = run("next");
    await until(() => current().stats().queued === 1, "a queued call");
    await current().close();
    expect((await queued).error?.message).toMatch(/shutting down/);
    expect((await running).ok).toBe(false);
    expect((await run("after")).error?.message).toMatch(/shutting down/);
  });
});
