import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFileEvent, type AgentEvent, type OpenFileEvent } from "@textide/shared";
import type { AgentRuntimeDeps } from "../server/runtime/agent-runtime.js";
import {
  call,
  collectAgentEvents,
  routedModel,
  startAgentServer,
  startAgentSession,
  waitUntil,
  type AgentServer,
  type AgentSession,
  type Turn,
} from "./agent-helpers.js";
import { connectClient, type Workspace } from "./helpers.js";

const TOKEN = "ide-token-for-mcp";
const MODEL = { id: "scripted", label: "Scripted test model", offline: true };

const scripts: Record<string, Turn[]> = {
  spin: [{ toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: 30_000 } }] }, "never"],
  open: [{ toolCalls: [{ name: "system_open_file", args: { path: "README.md", line: 3 } }] }, "Opened README.md."],
  simple: [{ toolCalls: [{ name: "exec_run_js", args: { code: "return 1 + 1;" } }] }, "ok"],
  write: [
    { toolCalls: [{ name: "fs_write_file", args: { path: "generated_assets/approved.txt", content: "yes" } }] },
    "Wrote it.",
  ],
  "write after restart": [
    { toolCalls: [{ name: "fs_write_file", args: { path: "generated_assets/restarted.txt", content: "yes" } }] },
    "Wrote it after the restart.",
  ],
};

let session: AgentSession;
let ws: Workspace;
let srv: AgentServer;
let client: Socket;
let events: AgentEvent[];
const opened: OpenFileEvent[] = [];

let deps: Partial<AgentRuntimeDeps>;

beforeAll(async () => {
  deps = { ideToken: TOKEN, model: { chat: await routedModel(scripts), info: MODEL }, approveTools: ["fs_write_file"] };
  session = await startAgentSession(deps);
  ({ ws, srv, client, events } = session);
  client.on("file/open", (e: unknown) => opened.push(openFileEvent.parse(e)));
});

afterAll(() => session?.close());

type Started = { runId: string; threadId: string };
const finalOf = (runId: string, ms = 20_000) =>
  waitUntil(() => events.find((e) => e.type === "final" && e.runId === runId), ms, `final of ${runId}`);

describe("agent runtime with a scripted model", () => {
  it("system_open_file called by the agent reaches the browsers as open_file (with the IDE token)", async () => {
    const ack = await call<Started>(client, "agent/run", { text: "open" });
    if (!ack.ok) throw new Error(ack.error.message);
    const final = await finalOf(ack.data.runId);
    expect(final).toMatchObject({ stopReason: "done", text: "Opened README.md." });
    const end = events.find((e) => e.type === "tool_end" && e.runId === ack.data.runId);
    expect(end).toMatchObject({ name: "system_open_file", isError: false });
    await waitUntil(() => opened.length > 0 || undefined, 2000, "file/open");
    expect(opened).toEqual([{ path: "README.md", line: 3 }]);
  });

  it("cancels a run stuck in a slow tool via agent/cancel", async () => {
    const ack = await call<Started>(client, "agent/run", { text: "spin" });
    if (!ack.ok) throw new Error(ack.error.message);
    const { runId, threadId } = ack.data;
    await waitUntil(() => events.find((e) => e.type === "tool_start" && e.runId === runId), 10_000, "tool_start");
    // one run at a time per thread
    expect(await call(client, "agent/run", { threadId, text: "again" })).toMatchObject({
      ok: false,
      error: { code: "conflict:agent" },
    });
    const started = Date.now();
    expect(await call(client, "agent/cancel", { runId })).toEqual({ ok: true, data: { runId } });
    const final = await finalOf(runId, 5000);
    expect(final).toMatchObject({ type: "final", stopReason: "cancelled" });
    expect(Date.now() - started).toBeLessThan(5000);
    // the thread is free again
    expect(await call(client, "agent/cancel", { runId })).toMatchObject({
      ok: false,
      error: { code: "not_found:run" },
    });
  });

  it("stops before a tool that needs approval and resumes on agent/approve", async () => {
    const ack = await call<Started>(client, "agent/run", { text: "write" });
    if (!ack.ok) throw new Error(ack.error.message);
    const { runId, threadId } = ack.data;
    await finalOf(runId);
    expect(events.find((e) => e.type === "approval_required" && e.runId === runId)).toMatchObject({
      name: "fs_write_file",
    });
    expect(events.find((e) => e.type === "final" && e.runId === runId)).toMatchObject({
      stopReason: "awaiting_approval",
    });
    const resumed = await call<Started>(client, "agent/approve", { threadId, decision: "approve" });
    if (!resumed.ok) throw new Error(resumed.error.message);
    expect(resumed.data.threadId).toBe(threadId);
    const final = await finalOf(resumed.data.runId);
    expect(final).toMatchObject({ stopReason: "done", text: "Wrote it." });
    expect(await call(client, "agent/approve", { threadId, decision: "approve" })).toMatchObject({
      ok: false,
      error: { code: "not_found:approval" },
    });
  });

  it("respawns the bundled MCP server when it dies", async () => {
    // Our own child only: the bundled server this test spawned for its temp workspace.
    const pids = execFileSync("pgrep", ["-P", String(process.pid), "-f", "--", ws.project], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
    expect(pids).toHaveLength(1);
    process.kill(pids[0]!, "SIGKILL");
    await waitUntil(() => srv.runtime.status().every((s) => !s.connected) || undefined, 5000, "disconnect");
    const ack = await call<Started>(client, "agent/run", { text: "simple" });
    if (!ack.ok) throw new Error(ack.error.message);
    const final = await finalOf(ack.data.runId);
    expect(final).toMatchObject({ stopReason: "done", text: "ok" });
    const end = events.find((e) => e.type === "tool_end" && e.runId === ack.data.runId);
    expect(end, JSON.stringify(end)).toMatchObject({ isError: false });
  });

  it("keeps a pending approval across a server restart: approving resumes the stopped call", async () => {
    const ack = await call<Started>(client, "agent/run", { text: "write after restart" });
    if (!ack.ok) throw new Error(ack.error.message);
    const { runId, threadId } = ack.data;
    expect(await finalOf(runId)).toMatchObject({ stopReason: "awaiting_approval" });

    await session.srv.runtime.idle();
    session.client.close();
    await session.srv.close();
    session.srv = await startAgentServer(ws, session.data.dir, deps);
    session.client = await connectClient(session.srv.base);
    const after = collectAgentEvents(session.client);

    const resumed = await call<Started>(session.client, "agent/approve", { threadId, decision: "approve" });
    if (!resumed.ok) throw new Error(resumed.error.message);
    const final = await waitUntil(
      () => after.find((e) => e.type === "final" && e.runId === resumed.data.runId),
      20_000,
      "final after the restart",
    );
    expect(final).toMatchObject({ stopReason: "done", text: "Wrote it after the restart." });
    expect(await readFile(path.join(ws.assets, "restarted.txt"), "utf8")).toBe("yes");
  });
});
