import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { searchFilesOutput, TOOL } from "@textide/shared";
import type { RunningHttpServer } from "../src/transports/http-server.js";
import { startHttpInProcess } from "./helpers/serve.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

const TOKEN = "test-token-0123456789abcdef";
let ws: TmpWorkspace;
let http: RunningHttpServer;

beforeAll(async () => {
  ws = await makeWorkspace();
  http = await startHttpInProcess(ws, TOKEN, { sessionIdleMs: 400 });
});
afterAll(async () => {
  await http.close();
  await ws.cleanup();
});

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** fetch() cannot set Host; node:http can, as a DNS-rebinding attacker's browser effectively does. */
function rawPostStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      http.url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(INIT));
  });
}

async function connect(mode: "legacy" | "auto"): Promise<Client> {
  const client = new Client({ name: `http-${mode}`, version: "1" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

describe("Streamable HTTP security", () => {
  it("requires the bearer token", async () => {
    const none = await post(INIT, { authorization: "" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await post(INIT, { authorization: "Bearer wrong-token-0123456789abc" })).status).toBe(401);
    expect((await post(INIT)).status).toBe(200);
  });

  it("rejects a foreign Host header with 403 (DNS rebinding)", async () => {
    const { port } = new URL(http.url);
    expect(await rawPostStatus({ host: `evil.example.com:${port}` })).toBe(403);
    expect(await rawPostStatus({ host: `localhost:${port}` })).toBe(200);
  });

  it("rejects a foreign Origin with 403, accepts a loopback one", async () => {
    expect((await post(INIT, { origin: "http://evil.example.com" })).status).toBe(403);
    expect((await post(INIT, { origin: "http://localhost:3000" })).status).toBe(200);
  });

  it("answers 404 for an unknown session", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": "no-such-session", "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
  });

  it("binds to loopback by default and 404s other paths", async () => {
    expect(new URL(http.url).hostname).toBe("127.0.0.1");
    const res = await fetch(new URL("/other", http.url), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
  });
});

describe("both protocol revisions", () => {
  it("serves a 2025-11-25 client with a session, and 404s that session after DELETE", async () => {
    const client = await connect("legacy");
    const r = await client.callTool({ name: TOOL.searchFiles, arguments: { query: "planets" } });
    expect(searchFilesOutput.parse(r.structuredContent).matches[0]?.path).toBe("data/planets.xlsx");
    expect(http.handler.sessionCount()).toBeGreaterThanOrEqual(1);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const res = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
    await client.close();
  });

  it("serves a 2026-07-28 client statelessly", async () => {
    const before = http.handler.sessionCount();
    const client = await connect("auto");
    const r = await client.callTool({ name: TOOL.searchFiles, arguments: { query: "*.tsv" } });
    expect(searchFilesOutput.parse(r.structuredContent).matches[0]?.path).toBe("data/moons/major-moons.tsv");
    // No session: the client holds no id, and the server's count did not grow (earlier tests' sessions
    // may be reaped meanwhile — they idle out after 400 ms — so it can only have stayed or shrunk).
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();
    expect(http.handler.sessionCount()).toBeLessThanOrEqual(before);
    await client.close();
  });

  it("reaps idle sessions", async () => {
    const client = await connect("legacy");
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    await new Promise((r) => setTimeout(r, 1000));
    const res = await post(
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
    await client.close().catch(() => undefined);
  });
});
