import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@textide/shared";
import { createAgent } from "../src/agent.js";
import { McpHub } from "../src/mcp/hub.js";
import { McpToolSet } from "../src/mcp/tools.js";
import { ScriptedChatModel } from "./fake-model.js";
import { makeWorkspace, type Workspace } from "./helpers/bundled-server.js";

/*
 * Progress from the bundled server to the agent's events (issue 14, item 3): a scripted model (the
 * only fake) charts with exec_run_js through the real server over stdio; the run's events carry the
 * server's progress reports for that call, between its tool_start and tool_end.
 */

const silent = { info: () => undefined, warn: () => undefined };
const MODEL = { id: "scripted", label: "Scripted test model", offline: true };
let ws: Workspace;
let hub: McpHub;

beforeAll(async () => {
  ws = await makeWorkspace();
  hub = new McpHub({ textide: ws.spec }, silent);
});
afterAll(async () => {
  await hub.close();
  await ws.cleanup();
});

const CHART = `await chart({ data: { values: [{ a: "x", b: 1 }, { a: "y", b: 2 }] }, mark: "bar",
  encoding: { x: { field: "a", type: "nominal" }, y: { field: "b", type: "quantitative" } } }, "progress-bars", { format: "svg" });
return 1;`;

describe("tool progress in the agent's events", () => {
  it("exec_run_js's queued, running and rendering reports arrive as tool_progress of that call", async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: "exec_run_js", args: { code: CHART } }] }, "Charted."]);
    const tools = await new McpToolSet(hub, { log: silent }).tools();
    const agent = createAgent({ model, modelInfo: MODEL, tools });
    const events: AgentEvent[] = [];
    await agent.run({ threadId: "t-progress", text: "chart it", onEvent: (e) => events.push(e) });

    const types = events.map((e) => e.type).filter((t) => t.startsWith("tool_"));
    expect(types).toEqual(["tool_start", "tool_progress", "tool_progress", "tool_progress", "tool_end"]);
    const start = events.find((e) => e.type === "tool_start")!;
    const progress = events.filter((e) => e.type === "tool_progress");
    expect(progress.map((e) => [e.callId, e.name, e.message])).toEqual([
      [start.callId, "exec_run_js", "queued: waiting for a free sandbox"],
      [start.callId, "exec_run_js", "running"],
      [start.callId, "exec_run_js", "rendering chart progress-bars"],
    ]);
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ callId: start.callId, isError: false });
  }, 120_000);
});
