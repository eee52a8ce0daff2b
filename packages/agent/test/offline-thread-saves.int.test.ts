import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../src/agent.js";
import { NodeSqliteSaver } from "../src/checkpoint/sqlite-saver.js";
import { OfflinePlanner } from "../src/planner/offline-planner.js";
import { useBundledServer } from "./helpers/scripted-server.js";

/*
 * The offline planner's runs save their thread once, when the run ends, not after every step, and
 * go on a few at a time (agent.ts). Whatever way a run ends, its thread must hold the whole run.
 */

const server = useBundledServer();
const OFFLINE = { id: "offline", label: "Offline planner", offline: true };
let dir: string;
let saver: NodeSqliteSaver;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "textide-offline-saves-"));
  saver = NodeSqliteSaver.open(path.join(dir, "threads.db"));
});
afterAll(async () => {
  saver?.close();
  await rm(dir, { recursive: true, force: true });
});

async function offlineAgent() {
  return createAgent({
    model: new OfflinePlanner(),
    modelInfo: OFFLINE,
    tools: await server.toolSet.tools(),
    checkpointer: saver,
  });
}

async function checkpointsOf(threadId: string): Promise<number> {
  let n = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) n++;
  return n;
}

describe("threads of the offline planner", () => {
  it("hold every step of a finished run, written when it ends, and a follow-up builds on them", async () => {
    const agent = await offlineAgent();
    const first = await agent.run({ threadId: "t-pie", text: "pie chart of the largest planets from planets.xlsx" });
    expect(first.stopReason).toBe("done");
    const roles = (await agent.history("t-pie")).map((m) => m.role);
    expect(roles.filter((r) => r === "tool")).toHaveLength(first.toolCalls.length);
    expect(roles.slice(-1)).toEqual(["assistant"]);
    expect(first.toolCalls.length).toBeGreaterThanOrEqual(2);
    // Not one checkpoint per step (a model call and a tool node each): at most the input's and the end's.
    expect(await checkpointsOf("t-pie")).toBeLessThanOrEqual(2);

    const again = await agent.run({ threadId: "t-pie", text: "now as a bar chart" });
    expect(again.stopReason).toBe("done");
    expect(again.final).toMatch(/planets\.xlsx/);
    expect(again.outputs.some((o) => o.endsWith(".png"))).toBe(true);
  });

  it("hold the steps a cancelled run finished, and the thread goes on", async () => {
    const agent = await offlineAgent();
    const controller = new AbortController();
    const cancelled = await agent.run({
      threadId: "t-cancel",
      text: "pie chart of the largest planets from planets.xlsx",
      signal: controller.signal,
      // Cancelled as the first exec_run_js starts: the search before it is done.
      onEvent: (e) => e.type === "tool_start" && e.name === "exec_run_js" && controller.abort(),
    });
    expect(cancelled.stopReason).toBe("cancelled");
    const trace = await agent.history("t-cancel");
    expect(trace.find((m) => m.role === "user")?.content).toContain("pie chart of the largest planets");
    expect(JSON.stringify(trace)).toContain("fs_search_files");
    const next = await agent.run({ threadId: "t-cancel", text: "list the files in data" });
    expect(next.stopReason).toBe("done");
    expect(next.final).toContain("planets.xlsx");
    const roles = (await agent.history("t-cancel")).map((m) => m.role);
    expect(roles.filter((r) => r === "user")).toHaveLength(2);
  });

  it("run many at once, a few at a time: every slot comes back, and one cancelled before its turn ends without a step", async () => {
    const agent = await offlineAgent();
    const controller = new AbortController();
    const runs = Array.from({ length: 12 }, (_, i) =>
      agent.run({
        threadId: `t-many-${i}`,
        text: "list the files in data",
        ...(i === 11 ? { signal: controller.signal } : {}),
      }),
    );
    // 12 runs, 4 at a time: the last 8 start only when earlier ones give their slots back.
    controller.abort();
    const results = await Promise.all(runs);
    expect(results.slice(0, 11).map((r) => r.stopReason)).toEqual(Array(11).fill("done"));
    for (const r of results.slice(0, 11)) expect(r.final).toContain("planets.xlsx");
    expect(results[11]).toMatchObject({ stopReason: "cancelled", toolCalls: [] });
  });
});
