import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOL } from "@textide/shared";
import { makeWorkspace, type TmpWorkspace } from "../helpers/tmp-root.js";
import {
  auditLogOf,
  checkCancellation,
  checkLargePage,
  checkToolsListCallAndError,
  FILES,
  waitForFile,
  writeTheFile,
  type AnyClient,
  type ToolResultLike,
} from "./checks.js";
import { serverArgs, startHttpServer, TOKEN, type HttpServer } from "./servers.js";

// Issue 14's acceptance for the TypeScript SDK clients: 1.x (what most hosts embed today) and v2,
// against the built binary over stdio and Streamable HTTP, both protocol revisions where the client
// speaks them (1.x knows only 2025-11-25).

// Real processes on a shared machine: a busy one makes them slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

let ws: TmpWorkspace;
let http: HttpServer;
const closers: (() => Promise<void>)[] = [];
const clients = new Map<string, AnyClient>();
const v2Clients = new Map<string, Client>();
const v1Clients = new Map<string, ClientV1>();

const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

beforeAll(async () => {
  [ws, http] = await Promise.all([makeWorkspace(FILES), startHttpServer(FILES)]);
  const v2 = async (name: string, transport: StdioClientTransport | StreamableHTTPClientTransport, legacy: boolean) => {
    const client = new Client({ name, version: "1" }, { versionNegotiation: { mode: legacy ? "legacy" : "auto" } });
    await client.connect(transport);
    closers.push(() => client.close());
    v2Clients.set(name, client);
    clients.set(name, {
      listTools: () => client.listTools(),
      call: async (tool, args, signal) =>
        (await client.callTool(
          { name: tool, arguments: args },
          { timeout: 60_000, ...(signal ? { signal } : {}) },
        )) as ToolResultLike,
    });
  };
  const v1 = async (name: string, transport: StdioV1 | HttpV1) => {
    const client = new ClientV1({ name, version: "1" });
    await client.connect(transport);
    closers.push(() => client.close());
    v1Clients.set(name, client);
    clients.set(name, {
      listTools: () => client.listTools(),
      call: async (tool, args, signal) =>
        (await client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: 60_000,
          ...(signal ? { signal } : {}),
        })) as ToolResultLike,
    });
  };
  const url = new URL(http.url);
  await Promise.all([
    v2("v2 stdio", new StdioClientTransport({ command: process.execPath, args: serverArgs(ws) }), false),
    v2("v2 http 2025-11-25", new StreamableHTTPClientTransport(url, { requestInit: auth }), true),
    v2("v2 http 2026-07-28", new StreamableHTTPClientTransport(url, { requestInit: auth }), false),
    v1("sdk 1.x stdio", new StdioV1({ command: process.execPath, args: serverArgs(ws) })),
    v1("sdk 1.x http 2025-11-25", new HttpV1(url, { requestInit: auth })),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  await Promise.allSettled([http?.stop(), ws?.cleanup()]);
});

const ALL = ["v2 stdio", "v2 http 2025-11-25", "v2 http 2026-07-28", "sdk 1.x stdio", "sdk 1.x http 2025-11-25"];

describe.each(ALL)("%s", (name) => {
  const client = () => clients.get(name)!;
  const auditLog = () => auditLogOf(name.includes("stdio") ? ws.base : http.ws.base);

  it("lists the tools, calls one, and gets a tool error as an isError result", async () => {
    await checkToolsListCallAndError(client());
  });

  it("reads a 2.5 MB file as pages of at most 1 MB that every client accepts", async () => {
    await checkLargePage(client());
  });

  it("stops a cancelled exec run on the server and keeps serving", async () => {
    await checkCancellation(client(), auditLog(), `cancel-me ${name}`);
  });

  it("offers the prompts with path completions", async () => {
    const c = v2Clients.get(name) ?? v1Clients.get(name)!;
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["describe-file", "chart-table", "find-files"]));
    const got = await c.getPrompt({ name: "describe-file", arguments: { path: "data/planets.xlsx" } });
    expect(JSON.stringify(got.messages)).toContain("data/planets.xlsx");
    const done = await c.complete({
      ref: { type: "ref/prompt", name: "describe-file" },
      argument: { name: "path", value: "data/pl" },
    });
    expect(done.completion.values).toEqual(["data/planets.xlsx"]);
  });
});

describe("exec runs from two clients", () => {
  // Each run finishes only when it meets the other's file: had the second waited behind the first,
  // the first would loop to its end without meeting it.
  it.each([
    ["over HTTP (v2 2025-11-25 session and 1.x session)", "v2 http 2025-11-25", "sdk 1.x http 2025-11-25"],
    ["over stdio (v2 and 1.x, each its own server)", "v2 stdio", "sdk 1.x stdio"],
  ])("run side by side %s", async (_label, a, b) => {
    // The stdio clients each spawned their own server: side by side is then two processes, and
    // proves only that neither blocks the other; the HTTP pair shares one server and its pool.
    const name = `met-${a.replace(/\W/g, "")}.txt`;
    const waiting = clients.get(a)!.call(TOOL.runJs, { code: waitForFile(name), timeoutMs: 30_000 });
    const writing = clients.get(b)!.call(TOOL.runJs, { code: writeTheFile(name) });
    expect((await writing).structuredContent).toMatchObject({ ok: true });
    expect((await waiting).structuredContent).toMatchObject({ ok: true, result: "met" });
  });
});
