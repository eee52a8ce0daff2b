import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@textide/shared";
import { agentEvent } from "@textide/shared";
import { createAgent } from "../src/agent.js";
import { NodeSqliteSaver } from "../src/checkpoint/sqlite-saver.js";
import { CUT_OFF_RESULT } from "../src/models/cut-off-calls.js";
import { ScriptedChatModel, type Turn } from "./fake-model.js";
import { SCRIPTED_MODEL as MODEL, useBundledServer } from "./helpers/scripted-server.js";

const server = useBundledServer();

async function agentWith(script: Turn[], extra: Partial<Parameters<typeof createAgent>[0]> = {}) {
  const model = new ScriptedChatModel(script);
  const agent = createAgent({ model, modelInfo: MODEL, tools: await server.toolSet.tools(), ...extra });
  return { agent, model };
}

const PIE = `const rows = await readTable("data/planets.xlsx");
const top = rows.sort((a, b) => b["Diameter (km)"] - a["Diameter (km)"]).slice(0, 5);
return await chart({ title: "Largest planets", data: { values: top }, mark: "arc",
  encoding: { theta: { field: "Diameter (km)", type: "quantitative" }, color: { field: "Planet", type: "nominal" } } }, "largest-planets-pie", { format: "png" });`;

describe("the agent graph with a scripted model and the real MCP server", () => {
  it("runs search → exec → answer, streaming typed events, and reports outputs", async () => {
    const { agent, model } = await agentWith([
      { toolCalls: [{ name: "fs_search_files", args: { query: "planets.xlsx" } }] },
      { toolCalls: [{ name: "exec_run_js", args: { code: PIE } }] },
      "Created generated_assets/largest-planets-pie.png, a pie chart of the five largest planets.",
    ]);
    const events: AgentEvent[] = [];
    const result = await agent.run({
      threadId: "t-pie",
      text: "pie chart of the largest planets from planets.xlsx",
      onEvent: (e) => events.push(e),
    });

    for (const e of events) expect(() => agentEvent.parse(e)).not.toThrow();
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["run_started", "tool_start", "tool_end", "token", "final"]),
    );
    expect(events.filter((e) => e.type === "token").length).toBeGreaterThan(3);
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.name, e.isError])).toEqual([
      ["fs_search_files", false],
      ["exec_run_js", false],
    ]);
    expect(ends[0]!.summary).toContain("data/planets.xlsx");
    expect(result.outputs).toEqual(["generated_assets/largest-planets-pie.png"]);
    expect((await stat(path.join(server.ws.assets, "largest-planets-pie.png"))).size).toBeGreaterThan(10_000);
    expect(result.stopReason).toBe("done");
    expect(result.final).toContain("largest-planets-pie.png");
    expect(model.boundTools).toContain("exec_run_js");
    // The model saw the tool result of its search before writing code.
    expect(JSON.stringify(model.calls[1]?.at(-1)?.content)).toContain("data/planets.xlsx");
    expect(result.trace.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
  });

  it("feeds a domain error back to the model as a tool error and continues", async () => {
    const { agent, model } = await agentWith([
      { toolCalls: [{ name: "fs_read_file", args: { path: "nope/missing.csv" } }] },
      (messages) =>
        JSON.stringify(messages.at(-1)?.content).includes("not_found") ? "That file does not exist." : "unexpected",
    ]);
    const result = await agent.run({ threadId: "t-err", text: "read nope/missing.csv" });
    expect(result.toolCalls).toEqual([{ name: "fs_read_file", args: { path: "nope/missing.csv" }, isError: true }]);
    expect(result.final).toBe("That file does not exist.");
    expect(model.calls).toHaveLength(2);
  });

  it("stops at the step limit and returns the partial trace, not nothing", async () => {
    const { agent } = await agentWith([{ toolCalls: [{ name: "fs_list_directory", args: { path: "." } }] }], {
      maxSteps: 3,
    });
    const result = await agent.run({ threadId: "t-loop", text: "loop forever" });
    expect(result.stopReason).toBe("recursion_limit");
    expect(result.final).toMatch(/step limit/);
    expect(result.trace.filter((m) => m.role === "tool").length).toBeGreaterThanOrEqual(2);
  });

  it("keeps the conversation in the thread across runs", async () => {
    const { agent, model } = await agentWith(["first answer", "second answer"]);
    await agent.run({ threadId: "t-thread", text: "hello" });
    await agent.run({ threadId: "t-thread", text: "again" });
    expect(model.calls[1]!.map((m) => m.getType())).toEqual(["system", "human", "ai", "human"]);
    expect((await agent.history("t-thread")).filter((m) => m.role === "user")).toHaveLength(2);
  });

  it("pauses for approval before chosen tools and resumes on approve or reject", async () => {
    const { agent } = await agentWith(
      [
        { toolCalls: [{ name: "fs_write_file", args: { path: "generated_assets/approved.txt", content: "yes" } }] },
        "done writing",
        { toolCalls: [{ name: "fs_write_file", args: { path: "generated_assets/rejected.txt", content: "no" } }] },
        (messages) => (JSON.stringify(messages.at(-1)?.content).includes("rejected") ? "ok, not written" : "??"),
      ],
      { approve: (name) => name === "fs_write_file" },
    );
    const paused = await agent.run({ threadId: "t-approve", text: "write a file" });
    expect(paused.stopReason).toBe("awaiting_approval");
    expect(paused.approval).toMatchObject({ name: "fs_write_file" });
    await expect(stat(path.join(server.ws.assets, "approved.txt"))).rejects.toThrow();
    const resumed = await agent.run({ threadId: "t-approve", resume: "approve" });
    expect(resumed.final).toBe("done writing");
    expect(await readFile(path.join(server.ws.assets, "approved.txt"), "utf8")).toBe("yes");

    await agent.run({ threadId: "t-reject", text: "write another" });
    const rejected = await agent.run({ threadId: "t-reject", resume: "reject" });
    expect(rejected.final).toBe("ok, not written");
    await expect(stat(path.join(server.ws.assets, "rejected.txt"))).rejects.toThrow();
  });

  it("keeps a pending approval across a restart (SQLite checkpointer) and resumes it", async () => {
    const file = path.join(server.ws.base, "restart", "threads.sqlite");
    const script: Turn[] = [
      {
        toolCalls: [
          { name: "fs_write_file", args: { path: "generated_assets/after-restart.txt", content: "resumed" } },
        ],
      },
      "written after the restart",
    ];
    const first = NodeSqliteSaver.open(file);
    const before = createAgent({
      model: new ScriptedChatModel(script),
      modelInfo: MODEL,
      tools: await server.toolSet.tools(),
      checkpointer: first,
      approve: (n) => n === "fs_write_file",
    });
    expect((await before.run({ threadId: "t-restart", text: "write after restart" })).stopReason).toBe(
      "awaiting_approval",
    );
    first.close();

    const second = NodeSqliteSaver.open(file);
    const model = new ScriptedChatModel(script.slice(1));
    const after = createAgent({
      model,
      modelInfo: MODEL,
      tools: await server.toolSet.tools(),
      checkpointer: second,
      approve: (n) => n === "fs_write_file",
    });
    const resumed = await after.run({ threadId: "t-restart", resume: "approve" });
    second.close();
    expect(resumed.final).toBe("written after the restart");
    expect(await readFile(path.join(server.ws.assets, "after-restart.txt"), "utf8")).toBe("resumed");
  });

  it("cancels a run through its AbortSignal, stopping the tool call in flight", async () => {
    const { agent } = await agentWith([
      { toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: 30000 } }] },
      "never",
    ]);
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 500);
    const result = await agent.run({ threadId: "t-cancel", text: "slow", signal: controller.signal });
    expect(result.stopReason).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(5000);
    // The server killed the busy sandbox: the next exec call is served at once, not after 30 s.
    const { agent: next } = await agentWith([
      { toolCalls: [{ name: "exec_run_js", args: { code: "return 1" } }] },
      "ok",
    ]);
    const after = performance.now();
    expect((await next.run({ threadId: "t-after-cancel", text: "quick" })).toolCalls[0]?.isError).toBe(false);
    expect(performance.now() - after).toBeLessThan(5000);
  });

  it("continues a thread cut off mid-call: the model reads that the call did not finish, right after it", async () => {
    const { agent, model } = await agentWith([
      { toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: 30000 } }] },
      "continued",
    ]);
    const controller = new AbortController();
    const run = agent.run({
      threadId: "t-cut",
      text: "slow",
      signal: controller.signal,
      onEvent: (e) => e.type === "tool_start" && controller.abort(),
    });
    expect((await run).stopReason).toBe("cancelled");
    const next = await agent.run({ threadId: "t-cut", text: "go on" });
    expect(next.final).toBe("continued");
    const seen = model.calls[1]!;
    expect(seen.slice(-3).map((m) => m.getType())).toEqual(["ai", "tool", "human"]);
    expect(seen.at(-2)!.content).toBe(CUT_OFF_RESULT);
    // Supplied in the model's input only: the thread's history keeps what happened.
    expect(next.trace.filter((m) => m.role === "tool")).toEqual([]);
  });
});
