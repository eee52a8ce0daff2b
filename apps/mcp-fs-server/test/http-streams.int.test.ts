import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, McpServer, ServerContext } from "@modelcontextprotocol/server";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { createLogger } from "../src/log.js";
import { createFsServer, type FsServer } from "../src/server.js";
import type { RunningHttpServer } from "../src/transports/http-server.js";
import { startHttpInProcess } from "./helpers/serve.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

// Issue 14: a cancelled request's POST stream ends; GET is 405 (no standalone SSE stream); a bad token
// is reported as one, with no OAuth endpoints to send OAuth-aware clients astray.

const TOKEN = "test-token-0123456789abcdef";
const WAIT_TOOL = "test_wait_for_cancel";
let ws: TmpWorkspace;
let http: RunningHttpServer;
/** Resolves when the wait tool starts; `aborted` when its signal fired. */
let waits: { started: Promise<void>; aborted: Promise<void> }[] = [];

beforeAll(async () => {
  ws = await makeWorkspace();
  const base = await createFsServer({ projectRoot: ws.project, assetsRoot: ws.assets, log: createLogger("silent") });
  // The real server plus one test-only tool that runs until it is cancelled.
  const fs: FsServer = {
    ...base,
    factory: async (ctx) => {
      const server = (await base.factory(ctx)) as McpServer;
      const wait = (_args: object, req: ServerContext): Promise<CallToolResult> => {
        let started!: () => void;
        let aborted!: () => void;
        waits.push({ started: new Promise((r) => (started = r)), aborted: new Promise((r) => (aborted = r)) });
        started();
        return new Promise((resolve) =>
          req.mcpReq.signal.addEventListener("abort", () => {
            aborted();
            resolve({ content: [{ type: "text", text: "stopped" }] });
          }),
        );
      };
      server.registerTool(WAIT_TOOL, { description: "waits for cancellation", inputSchema: z.object({}) }, wait);
      return server;
    },
  };
  http = await startHttpInProcess(ws, TOKEN, { fs });
});
afterAll(async () => {
  await http.close();
  await ws.cleanup();
});

const LEGACY = { "mcp-protocol-version": "2025-11-25" };

function send(method: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(http.url, {
    method,
    headers: {
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function openSession(): Promise<string> {
  const init = await send("POST", {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get("mcp-session-id")!;
  const ready = await send(
    "POST",
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { ...LEGACY, "mcp-session-id": session },
  );
  expect(ready.status).toBe(202);
  return session;
}

describe("a cancelled request over 2025-11-25 HTTP", () => {
  it("ends the POST's stream without a response once notifications/cancelled arrives", async () => {
    waits = [];
    const session = await openSession();
    const headers = { ...LEGACY, "mcp-session-id": session };
    const call = send(
      "POST",
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: WAIT_TOOL, arguments: {} } },
      headers,
    ).then(async (res) => ({ status: res.status, body: await res.text() }));
    await waitFor(() => waits.length === 1);
    await waits[0]!.started;

    const cancel = await send(
      "POST",
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "user stopped" } },
      headers,
    );
    expect(cancel.status).toBe(202);
    await waits[0]!.aborted;
    // Without the fix this read never ends (until the session is deleted) and the test times out.
    const { status, body } = await call;
    expect(status).toBe(200);
    expect(body).not.toContain('"id":7');

    // The session goes on serving.
    const list = await send("POST", { jsonrpc: "2.0", id: 8, method: "tools/list" }, headers);
    expect(await list.text()).toContain('"id":8');
  }, 30_000);

  it("lets an SDK 1.x client's POST complete after it cancels a call (the web app's client)", async () => {
    waits = [];
    const bodies: Promise<string>[] = [];
    const errors: unknown[] = [];
    const transport = new TransportV1(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      // Reads a copy of each tools/call response to its end, as the client's own reader does.
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (init?.method === "POST" && typeof init.body === "string" && init.body.includes(WAIT_TOOL))
          bodies.push(res.clone().text());
        return res;
      },
    });
    const client = new ClientV1({ name: "v1", version: "1" });
    client.onerror = (err) => errors.push(err);
    await client.connect(transport);
    const stop = new AbortController();
    const call = client.callTool({ name: WAIT_TOOL, arguments: {} }, undefined, { signal: stop.signal });
    await waitFor(() => waits.length === 1);
    await waits[0]!.started;
    stop.abort("user stopped");
    await expect(call).rejects.toThrow();
    await waits[0]!.aborted;
    await waitFor(() => bodies.length === 1);
    // The POST's stream ends (without the fix it stays open until the session is deleted).
    expect(await bodies[0]).not.toContain('"result"');
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await transport.terminateSession();
    await client.close();
  }, 30_000);
});

describe("GET on the endpoint (no standalone SSE stream)", () => {
  it("answers 405 with Allow before initialize, within a session, and every time after", async () => {
    const accept = { accept: "text/event-stream" };
    const before = await send("GET", undefined, accept);
    expect(before.status).toBe(405);
    expect(before.headers.get("allow")).toMatch(/POST/);
    await before.text();

    const session = await openSession();
    for (let i = 0; i < 2; i++) {
      const res = await send("GET", undefined, { ...accept, ...LEGACY, "mcp-session-id": session });
      expect(res.status).toBe(405);
      expect(res.headers.get("content-type")).not.toMatch(/event-stream/);
      await res.text();
    }
    const gone = await send("GET", undefined, { ...accept, ...LEGACY, "mcp-session-id": "no-such-session" });
    expect(gone.status).toBe(404);
  });

  it("gives SDK clients (2025-11-25 and 2026-07-28) no transport errors and no list_changed promises", async () => {
    for (const mode of ["legacy", "auto"] as const) {
      const errors: unknown[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      const client = new Client({ name: `get-${mode}`, version: "1" }, { versionNegotiation: { mode } });
      client.onerror = (err) => errors.push(err);
      await client.connect(transport);
      const caps = client.getServerCapabilities();
      expect(caps?.tools?.listChanged).not.toBe(true);
      expect(caps?.resources?.listChanged).not.toBe(true);
      await client.listTools();
      await client.close();
      expect(errors).toEqual([]);
    }
  });
});

describe("a missing or wrong bearer token", () => {
  const initBody = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };

  it("is a 401 that says which, RFC 6750 style, with no resource_metadata", async () => {
    const missing = await send("POST", initBody, { authorization: "" });
    expect(missing.status).toBe(401);
    const missingChallenge = missing.headers.get("www-authenticate")!;
    expect(missingChallenge).toMatch(/^Bearer realm="textide-mcp"$/);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/no bearer token/);

    const wrong = await send("POST", initBody, { authorization: "Bearer wrong-token-0123456789abcd" });
    expect(wrong.status).toBe(401);
    const challenge = wrong.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer realm="textide-mcp", error="invalid_token", error_description="[^"\\]+"$/);
    expect(challenge).not.toMatch(/resource_metadata/);
    expect(/error_description="([^"]+)"/.exec(challenge)![1]).toMatch(/token is wrong/);
    const body = (await wrong.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/bearer token is wrong/);
  });

  it("finds no OAuth metadata or registration endpoint, and the 404s say the server takes a static token", async () => {
    const origin = new URL(http.url).origin;
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/register",
    ]) {
      const res = await fetch(origin + path, { method: path === "/register" ? "POST" : "GET" });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toMatch(/does not use OAuth.*missing or wrong/);
    }
  });

  it("reaches an SDK client as a 401 carrying the server's message", async () => {
    const client = new Client({ name: "bad-token", version: "1" }, { versionNegotiation: { mode: "legacy" } });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: "Bearer wrong-token-0123456789abcd" } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/401|bearer token is wrong/i);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}
