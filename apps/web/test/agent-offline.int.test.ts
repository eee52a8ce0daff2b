import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../server/config.js";
import { fileChangedEvent, type AgentEvent, type AgentOutputsEvent, type FileChangedEvent } from "@textide/shared";
import {
  call,
  collectAgentEvents,
  startAgentServer,
  startAgentSession,
  waitUntil,
  type AgentSession,
} from "./agent-helpers.js";
import { connectClient, request, type Workspace } from "./helpers.js";

let session: AgentSession;
let ws: Workspace;
let client: Socket;
let other: Socket;
let events: AgentEvent[];
let otherEvents: AgentEvent[];
const otherOutputs: AgentOutputsEvent[] = [];
const changes: FileChangedEvent[] = [];

beforeAll(async () => {
  session = await startAgentSession();
  ({ ws, client, events } = session);
  other = await connectClient(session.srv.base);
  otherEvents = collectAgentEvents(other);
  other.on("agent/outputs", (e: AgentOutputsEvent) => otherOutputs.push(e));
  client.on("file/changed", (e: unknown) => changes.push(fileChangedEvent.parse(e)));
});

afterAll(async () => {
  other?.close();
  await session?.close();
});

const get = (p: string) => request(session.srv.port, "GET", p);
let threadId = "";

describe("agent over socket.io with the offline planner and the bundled MCP server", () => {
  it("GET /api/model labels the offline planner and says how to configure a model", async () => {
    const r = await get("/api/model");
    expect(r.status).toBe(200);
    const body = r.json() as { id: string; label: string; offline: boolean; configureHint: string };
    expect(body).toMatchObject({ id: "offline", offline: true });
    expect(body.label).toMatch(/offline planner/i);
    for (const v of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST", "TEXTIDE_MODEL"])
      expect(body.configureHint).toContain(v);
  });

  it("runs the planets pie chart: tool events, tokens, a final png output, and file/changed for it", async () => {
    const ack = await call<{ runId: string; threadId: string }>(client, "agent/run", {
      text: "pie chart of the largest planets from planets.xlsx",
    });
    expect(ack.ok).toBe(true);
    if (!ack.ok) return;
    const { runId } = ack.data;
    threadId = ack.data.threadId;
    const final = await waitUntil(
      () => events.find((e) => e.type === "final" && e.runId === runId),
      45_000,
      "the final event",
    );
    const mine = events.filter((e) => e.runId === runId);
    expect(mine[0]).toMatchObject({ type: "run_started", runId, threadId, model: { id: "offline", offline: true } });
    const started = mine.filter((e) => e.type === "tool_start").map((e) => e.name);
    const ended = mine.filter((e) => e.type === "tool_end");
    expect(started).toEqual(expect.arrayContaining(["fs_search_files", "exec_run_js"]));
    expect(ended.map((e) => e.name)).toEqual(expect.arrayContaining(["fs_search_files", "exec_run_js"]));
    expect(ended.every((e) => e.type === "tool_end" && !e.isError)).toBe(true);
    expect(mine.some((e) => e.type === "token")).toBe(true);
    if (final.type !== "final") throw new Error("not final");
    expect(final.stopReason).toBe("done");
    const png = final.outputs.find((o) => /^generated_assets\/.+\.png$/.test(o));
    expect(png).toBeDefined();
    const file = path.join(ws.assets, png!.replace(/^generated_assets\//, ""));
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).size).toBeGreaterThan(1000);
    await waitUntil(() => changes.some((c) => c.path === png && c.kind !== "unlink"), 5000, `file/changed ${png}`);
    // Every window opens the run's outputs; only the windows following the thread get its events.
    await waitUntil(
      () => otherOutputs.some((o) => o.runId === runId && o.threadId === threadId && o.outputs.includes(png!)),
      5000,
      "agent/outputs with the chart on the other window",
    );
    expect(otherEvents.filter((e) => e.runId === runId)).toEqual([]);
  });

  it("lists the thread over REST and returns its trace", async () => {
    const list = (await get("/api/threads")).json() as { threads: { threadId: string; title: string }[] };
    const t = list.threads.find((x) => x.threadId === threadId);
    expect(t?.title).toBe("pie chart of the largest planets from planets.xlsx");
    const r = await get(`/api/threads/${threadId}`);
    expect(r.status).toBe(200);
    const { messages } = r.json() as { messages: { role: string; content: string }[] };
    expect(messages.find((m) => m.role !== "system")).toMatchObject({
      role: "user",
      content: "pie chart of the largest planets from planets.xlsx",
    });
    expect(messages.filter((m) => m.role === "tool").length).toBeGreaterThanOrEqual(2);
    expect((await get("/api/threads/no-such-thread")).status).toBe(404);
    expect((await get("/api/threads/bad%20id")).status).toBe(400);
  });

  it("answers bad payloads with bad_request:socket and keeps serving", async () => {
    for (const [event, payload] of [
      ["agent/run", { text: 42 }],
      ["agent/run", "not an object"],
      ["agent/run", { text: "   " }],
      ["agent/cancel", {}],
      ["agent/approve", { threadId: "x", decision: "maybe" }],
    ] as const) {
      const ack = await call(client, event, payload);
      expect(ack).toMatchObject({ ok: false, error: { code: "bad_request:socket" } });
    }
    client.emit("agent/run", { nope: true }); // no ack callback: must not crash the server
    expect(await call(client, "agent/cancel", { runId: "unknown" })).toMatchObject({
      ok: false,
      error: { code: "not_found:run" },
    });
    expect(await call(client, "agent/approve", { threadId, decision: "approve" })).toMatchObject({
      ok: false,
      error: { code: "bad_request:agent" },
    });
    expect((await get("/api/health")).status).toBe(200);
  });

  it("continues a thread in a second run, seen by a window that follows the thread", async () => {
    expect(await call(other, "agent/follow", { threadId })).toEqual({ ok: true, data: { threadId } });
    const ack = await call<{ runId: string; threadId: string }>(client, "agent/run", {
      threadId,
      text: "list the files in data",
    });
    expect(ack).toMatchObject({ ok: true, data: { threadId } });
    if (!ack.ok) return;
    await waitUntil(() => events.find((e) => e.type === "final" && e.runId === ack.data.runId), 30_000, "final");
    const followed = await waitUntil(
      () => otherEvents.find((e) => e.type === "final" && e.runId === ack.data.runId),
      5000,
      "the final event on the following window",
    );
    expect(followed).toEqual(events.find((e) => e.type === "final" && e.runId === ack.data.runId));
    expect(otherEvents.filter((e) => e.runId === ack.data.runId).length).toBe(
      events.filter((e) => e.runId === ack.data.runId).length,
    );
    // Unfollowing (a new, empty thread shown) stops the events; a bad thread id is refused.
    expect(await call(other, "agent/follow", { threadId: null })).toEqual({ ok: true, data: { threadId: null } });
    expect(await call(other, "agent/follow", { threadId: "bad id" })).toMatchObject({
      ok: false,
      error: { code: "bad_request:socket" },
    });
    const again = await call<{ runId: string; threadId: string }>(client, "agent/run", {
      threadId,
      text: "list the files in data",
    });
    if (!again.ok) throw new Error(again.error.message);
    await waitUntil(() => events.find((e) => e.type === "final" && e.runId === again.data.runId), 30_000, "final");
    expect(otherEvents.filter((e) => e.runId === again.data.runId)).toEqual([]);
    const { messages } = (await get(`/api/threads/${threadId}`)).json() as { messages: { role: string }[] };
    expect(messages.filter((m) => m.role === "user")).toHaveLength(3);
  });

  it("keeps threads across a restart on the same data dir", async () => {
    await session.srv.runtime.idle();
    client.close();
    other.close();
    await session.srv.close();
    // close() in afterAll stops this one.
    session.srv = await startAgentServer(ws, session.data.dir);
    const list = (await get("/api/threads")).json() as { threads: { threadId: string; title: string }[] };
    expect(list.threads.map((t) => t.threadId)).toContain(threadId);
    const r = await get(`/api/threads/${threadId}`);
    expect(r.status).toBe(200);
    expect((r.json() as { messages: unknown[] }).messages.length).toBeGreaterThan(3);
  });
});

describe("loadConfig (agent settings)", () => {
  it("defaults the data dir, the MCP timeout and the bundled server, and passes only model variables on", () => {
    const cfg = loadConfig({ ANTHROPIC_API_KEY: "k", TEXTIDE_MODEL: "offline", SECRET: "x" }, "/tmp");
    expect(cfg.dataDir).toMatch(/\.textide$/);
    expect(cfg.toolTimeoutMs).toBe(60_000);
    expect(cfg.mcpServerBin).toMatch(/apps\/mcp-fs-server\/dist\/index\.js$/);
    expect(cfg.modelEnv).toEqual({ ANTHROPIC_API_KEY: "k", TEXTIDE_MODEL: "offline" });
    expect(cfg.approveTools).toEqual([]);
  });

  it("reads TEXTIDE_DATA_DIR, MCP_TIMEOUT_SEC and TEXTIDE_APPROVE, and rejects a bad timeout", () => {
    const cfg = loadConfig(
      { TEXTIDE_DATA_DIR: "data", MCP_TIMEOUT_SEC: "2.5", TEXTIDE_APPROVE: "fs_write_file, exec_run_js" },
      "/srv",
    );
    expect(cfg.dataDir).toBe("/srv/data");
    expect(cfg.toolTimeoutMs).toBe(2500);
    expect(cfg.approveTools).toEqual(["fs_write_file", "exec_run_js"]);
    expect(() => loadConfig({ MCP_TIMEOUT_SEC: "0" })).toThrow(/MCP_TIMEOUT_SEC/);
  });
});
