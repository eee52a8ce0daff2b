import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { ExecPool } from "../src/exec/pool.js";

const runnerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/scripted-runner.mjs");
let pool: ExecPool;

function makePool(runsPerRunner = 100): ExecPool {
  pool = new ExecPool({
    projectRoot: "/tmp",
    assetsRoot: "/tmp",
    sandbox: "none",
    log: createLogger("silent"),
    runsPerRunner,
    runnerPath,
  });
  return pool;
}
const run = (code: string, timeoutMs = 300) => pool.run({ code, timeoutMs, memoryMb: 64, correlationId: "t" });
const pidOf = async () => Number((await run("pid")).resultJson);

afterEach(() => pool.close());

describe("ExecPool supervision", () => {
  it("keeps one warm runner across runs", async () => {
    makePool();
    expect(await pidOf()).toBe(await pidOf());
  });

  it("SIGKILLs a runner that overstays its deadline and serves the next call from a new one", async () => {
    makePool();
    const before = await pidOf();
    const started = performance.now();
    const hung = await run("hang", 200);
    expect(hung.error?.kind).toBe("timeout");
    expect(hung.error?.message).toMatch(/killed/);
    expect(performance.now() - started).toBeLessThan(4000);
    const after = await pidOf();
    expect(after).not.toBe(before);
  });

  it("reports a crashed runner as an error and recovers", async () => {
    makePool();
    const crashed = await run("crash");
    expect(crashed).toMatchObject({ ok: false, error: { kind: "runtime" } });
    expect((await run("again")).resultJson).toBe('"again"');
  });

  it("classifies a catastrophic allocation as memory and recovers", async () => {
    makePool();
    const oom = await run("oom");
    expect(oom.error?.kind).toBe("memory");
    expect((await run("next")).ok).toBe(true);
  });

  it("recycles after a memory disposal and after N runs", async () => {
    makePool(3);
    const a = await pidOf();
    await run("recycle");
    const b = await pidOf();
    expect(b).not.toBe(a);
    expect(await pidOf()).toBe(b);
    expect(await pidOf()).toBe(b); // the third run on this runner retires it
    expect(await pidOf()).not.toBe(b);
  });

  it("kills the runner when a call is cancelled, and the next call does not wait", async () => {
    makePool();
    const before = await pidOf();
    const controller = new AbortController();
    const pending = pool.run({ code: "hang", timeoutMs: 30_000, memoryMb: 64, correlationId: "c" }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    expect((await pending).error?.message).toMatch(/Cancelled/);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await pidOf()).not.toBe(before);
  });

  it("answers a call cancelled while the runner is still starting at once, without running it", async () => {
    makePool();
    const controller = new AbortController();
    const started = performance.now();
    const pending = pool.run({ code: "hang", timeoutMs: 30_000, memoryMb: 64, correlationId: "c" }, controller.signal);
    // After the queued task has begun waiting for the runner's "ready", before the runner is up.
    setImmediate(() => controller.abort());
    expect((await pending).error?.message).toMatch(/Cancelled/);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await run("next")).resultJson).toBe('"next"');
  });

  it("queues concurrent calls instead of interleaving them", async () => {
    makePool();
    const results = await Promise.all(["a", "b", "c"].map((code) => run(code)));
    expect(results.map((r) => r.resultJson)).toEqual(['"a"', '"b"', '"c"']);
  });
});
