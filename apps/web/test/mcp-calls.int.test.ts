import { mcpCallEvent, type AgentEvent, type McpCallEvent } from "@textide/shared";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpCallLog } from "../server/mcp/call-log.js";
import { call, startAgentSession, waitUntil, type AgentServer, type AgentSession } from "./agent-helpers.js";
import { connectClient, request } from "./helpers.js";

let session: AgentSession;
let srv: AgentServer;
let client: Socket;
let events: AgentEvent[];
let quiet: Socket;
const live: McpCallEvent[] = [];
const unwatched: unknown[] = [];

beforeAll(async () => {
  session = await startAgentSession({}, new McpCallLog());
  ({ srv, client, events } = session);
  client.on("mcp/call", (e: unknown) => live.push(mcpCallEvent.parse(e)));
  expect(await call(client, "mcp/watch", { watch: true })).toEqual({ ok: true, data: { watch: true } });
  // A window that does not show the call log is not sent the calls.
  quiet = await connectClient(srv.base);
  quiet.on("mcp/call", (e: unknown) => unwatched.push(e));
});

afterAll(async () => {
  quiet?.close();
  await session?.close();
});

describe("MCP call log of the agent's bundled server (offline planner run)", () => {
  it("streams each tool call as mcp/call and serves the same calls from GET /api/mcp-calls", async () => {
    expect((await request(srv.port, "GET", "/api/mcp-calls")).json()).toEqual({ calls: [] });
    const ack = await call<{ runId: string }>(client, "agent/run", {
      text: "pie chart of the largest planets from planets.xlsx",
    });
    if (!ack.ok) throw new Error(ack.error.message);
    const { runId } = ack.data;
    await waitUntil(() => events.find((e) => e.type === "final" && e.runId === runId), 45_000, "final");
    const toolEnds = events.filter((e) => e.type === "tool_end" && e.runId === runId);
    // A call's log line is written before its result is sent, but stderr and stdout are separate pipes.
    await waitUntil(() => live.length >= toolEnds.length || undefined, 3000, "one mcp/call per tool call");

    expect(live.map((c) => c.tool)).toEqual(toolEnds.map((e) => (e.type === "tool_end" ? e.name : "")));
    expect(live.map((c) => c.tool)).toEqual(expect.arrayContaining(["fs_search_files", "exec_run_js"]));
    for (const c of live) {
      expect(c).toMatchObject({ source: "agent", status: "ok" });
      expect(c.durationMs).toBeGreaterThan(0);
      // The agent's correlation id (run id : tool call id) names the entry.
      expect(c.id.startsWith(`${runId}:`)).toBe(true);
    }
    const search = live.find((c) => c.tool === "fs_search_files");
    expect(JSON.stringify(search?.args)).toContain("planets");
    const exec = live.find((c) => c.tool === "exec_run_js");
    expect(exec?.args).toMatchObject({ code: expect.stringMatching(/^<\d+ chars>$|readTable/) as unknown });

    const r = await request(srv.port, "GET", "/api/mcp-calls");
    expect(r.status).toBe(200);
    const { calls } = r.json() as { calls: unknown[] };
    expect(calls.map((c) => mcpCallEvent.parse(c))).toEqual(live);
    const times = live.map((c) => c.at);
    expect([...times].sort()).toEqual(times);
    expect((await request(srv.port, "POST", "/api/mcp-calls")).status).toBe(405);
    expect(unwatched).toEqual([]);
  });

  it("stops sending mcp/call to a window that closed the call log, and refuses a bad payload", async () => {
    expect(await call(client, "mcp/watch", { watch: false })).toEqual({ ok: true, data: { watch: false } });
    expect(await call(client, "mcp/watch", { watch: "yes" })).toMatchObject({
      ok: false,
      error: { code: "bad_request:socket" },
    });
    const before = live.length;
    const ack = await call<{ runId: string }>(client, "agent/run", { text: "list the files in data" });
    if (!ack.ok) throw new Error(ack.error.message);
    await waitUntil(() => events.find((e) => e.type === "final" && e.runId === ack.data.runId), 30_000, "final");
    const logged = (await request(srv.port, "GET", "/api/mcp-calls")).json() as { calls: unknown[] };
    expect(logged.calls.length).toBeGreaterThan(before);
    expect(live.length).toBe(before);
  });
});
