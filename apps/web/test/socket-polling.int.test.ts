import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { io as ioClient, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileChangedEvent, type FileChangedEvent } from "@textide/shared";
import { startAgentServer, type AgentServer } from "./agent-helpers.js";
import { notBuiltReason, startWebProcess, type WebProcess } from "./browser-harness.js";
import { makeWorkspace, type Workspace } from "./helpers.js";

// Issue 11, item 5: the REST handler also answered engine.io's long-polling requests (404), so
// engine.io's own answer threw ERR_HTTP_HEADERS_SENT as an uncaught exception and clients behind
// proxies that block WebSockets could not use the IDE.

let ws: Workspace;
let dataDir: string;
let srv: AgentServer;
let client: Socket | undefined;
const uncaught: unknown[] = [];
const recordUncaught = (err: unknown) => uncaught.push(err);

beforeAll(async () => {
  process.on("uncaughtException", recordUncaught);
  ws = await makeWorkspace();
  dataDir = await mkdtemp(path.join(tmpdir(), "textide-polling-"));
  srv = await startAgentServer(ws, dataDir);
});
afterAll(async () => {
  client?.close();
  await srv?.close();
  await ws?.remove();
  await rm(dataDir, { recursive: true, force: true });
  process.off("uncaughtException", recordUncaught);
});

/** Connects over polling only, then checks both directions: a watcher event in, an acked event out. */
async function exercisePolling(base: string, project: string, file: string): Promise<Socket> {
  const socket = ioClient(base, { transports: ["polling"], reconnection: false, forceNew: true });
  const events: FileChangedEvent[] = [];
  const seen = new Promise<void>((resolve) => {
    socket.on("file/changed", (e: unknown) => {
      events.push(fileChangedEvent.parse(e));
      if (events.some((x) => x.path === file)) resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  expect(socket.io.engine.transport.name).toBe("polling");

  await writeFile(path.join(project, file), "hello\n");
  await seen;
  expect(events).toContainEqual({ root: "project_root", path: file, kind: "add" });

  const ack = (await socket.timeout(10_000).emitWithAck("agent/cancel", { runId: "no-such-run" })) as {
    ok: boolean;
    error?: { code: string };
  };
  expect(ack).toMatchObject({ ok: false, error: { code: "not_found:run" } });
  expect(socket.connected).toBe(true);
  expect(socket.io.engine.transport.name).toBe("polling");
  return socket;
}

describe("socket.io over HTTP long-polling (issue 11)", () => {
  it("connects, receives file/changed, emits agent/cancel and gets its ack, without uncaught exceptions", async () => {
    client = await exercisePolling(srv.base, ws.project, "polled.txt");
    expect(uncaught).toEqual([]);
  });
});

describe.skipIf(notBuiltReason !== undefined)("long-polling on the production server (issue 11)", () => {
  let web: WebProcess;
  let wsProd: Workspace;
  let socket: Socket | undefined;
  beforeAll(async () => {
    wsProd = await makeWorkspace();
    web = await startWebProcess(wsProd);
  });
  afterAll(async () => {
    socket?.close();
    await web?.stop();
    await wsProd?.remove();
  });

  it("works end to end, and the server logs no uncaught exception", async () => {
    socket = await exercisePolling(web.base, wsProd.project, "polled-prod.txt");
    expect(web.child.exitCode).toBeNull();
    expect(web.output()).not.toMatch(/uncaught|ERR_HTTP_HEADERS_SENT/i);
  });
});
