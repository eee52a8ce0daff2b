import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../src/agent.js";
import { McpHub } from "../src/mcp/hub.js";
import { McpToolSet } from "../src/mcp/tools.js";
import { ScriptedChatModel } from "./fake-model.js";
import { makeWorkspace, type Workspace } from "./helpers/bundled-server.js";

let ws: Workspace;
const lines: { obj: Record<string, unknown>; msg: string }[] = [];
const log = {
  info: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
  warn: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
};
let hub: McpHub;

beforeAll(async () => {
  ws = await makeWorkspace();
  // info level so the server logs each call on stderr, which the hub drains into our log.
  const spec = {
    ...ws.spec,
    args: [
      ...(ws.spec as { args: string[] }).args.filter((a) => a !== "warn" && a !== "--log-level"),
      "--log-level",
      "info",
    ],
  };
  hub = new McpHub({ textide: spec }, log);
});
afterAll(async () => {
  await hub.close();
  await ws.cleanup();
});

describe("observability", () => {
  it("logs one line per model call and per tool call, with a correlation id the MCP server logs too", async () => {
    const tools = await new McpToolSet(hub, { log }).tools();
    const agent = createAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: "fs_search_files", args: { query: "planets" } }] },
        "found it",
      ]),
      modelInfo: { id: "scripted", label: "scripted", offline: true },
      tools,
      log,
    });
    const result = await agent.run({ threadId: "obs", text: "find planets" });
    const toolLine = lines.find((l) => l.msg === "tool call" && l.obj.tool === "fs_search_files");
    const correlationId = toolLine?.obj.correlationId as string;
    expect(correlationId).toContain(result.runId);
    expect(lines.filter((l) => l.msg === "model call")).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 200)); // the server's stderr line arrives asynchronously
    const serverLine = lines.find((l) => typeof l.obj.stderr === "string" && l.obj.stderr.includes(correlationId));
    expect(serverLine, "the MCP server logged the same correlation id").toBeDefined();
    expect(
      JSON.parse((serverLine!.obj.stderr as string).split("\n").find((s) => s.includes(correlationId))!),
    ).toMatchObject({ tool: "fs_search_files", correlationId, outcome: "ok" });
  });
});
