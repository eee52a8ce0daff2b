import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHub } from "../../src/mcp/hub.js";
import { McpToolSet } from "../../src/mcp/tools.js";
import { makeWorkspace, type Workspace } from "../helpers/bundled-server.js";
import { fixtureSpec, recordingLog, startHttpServer, type HttpFixture } from "../fixtures/mcp/servers.js";
import { byName, callTool, meta } from "./call.js";

describe("graceful degradation", () => {
  let ws: Workspace;
  let hub: McpHub;
  const log = recordingLog();

  beforeAll(async () => {
    ws = await makeWorkspace();
    hub = new McpHub(
      {
        missing: { command: "/nonexistent/textide-no-such-mcp-server", args: [] },
        quits: { command: process.execPath, args: ["-e", "process.exit(3)"] },
        textide: ws.spec,
      },
      log,
    );
  });
  afterAll(async () => {
    await hub.close();
    await ws.cleanup();
  });

  it("connectAll reports the servers that fail and connects the others", async () => {
    const statuses = await hub.connectAll();
    expect(statuses.map((s) => [s.name, s.connected])).toEqual([
      ["missing", false],
      ["quits", false],
      ["textide", true],
    ]);
    expect(statuses[0]!.error).toMatch(/ENOENT/);
    expect(statuses[1]!.error).toMatch(/closed/i);
    expect(hub.status()).toEqual([
      { name: "missing", connected: false, error: statuses[0]!.error },
      { name: "quits", connected: false, error: statuses[1]!.error },
      { name: "textide", connected: true },
    ]);
  });

  it("tools() still returns the bundled server's tools, and they work", async () => {
    const tools = await new McpToolSet(hub, { log }).tools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((t) => meta(t).server === "textide")).toBe(true);
    const { text, artifact } = await callTool(byName(tools, "fs_read_file"), { path: "README.md" });
    expect(artifact.isError).toBe(false);
    expect(text.length).toBeGreaterThan(20);
    expect(log.lines.filter((l) => l.level === "warn").map((l) => (l.obj as { server: string }).server)).toEqual(
      expect.arrayContaining(["missing", "quits"]),
    );
  });

  it("a domain error from the bundled server is returned as data", async () => {
    const tools = await new McpToolSet(hub, { log }).tools();
    const { text, artifact } = await callTool(byName(tools, "fs_read_file"), { path: "no/such/file.txt" });
    expect(artifact.isError).toBe(true);
    expect(text).toMatch(/not_found/);
  });
});

describe("connections", () => {
  let http: HttpFixture;
  beforeAll(async () => {
    http = await startHttpServer();
  });
  afterAll(() => http.close());

  it("connects to a Streamable HTTP server by {url}, sending the configured headers", async () => {
    const hub = new McpHub({ remote: { url: http.mcpUrl, headers: { "x-api-key": http.apiKey } } }, recordingLog());
    try {
      expect(await hub.connectAll()).toEqual([{ name: "remote", connected: true }]);
      const tools = await new McpToolSet(hub, { log: recordingLog() }).tools();
      const { text } = await callTool(byName(tools, "whoami"));
      expect(JSON.parse(text)).toEqual({ transport: "streamable-http", apiKey: http.apiKey });
    } finally {
      await hub.close();
    }
  });

  it("connects to a legacy SSE server with transport: sse", async () => {
    const hub = new McpHub(
      { legacy: { url: http.sseUrl, transport: "sse", headers: { "x-api-key": http.apiKey } } },
      recordingLog(),
    );
    try {
      expect(await hub.connectAll()).toEqual([{ name: "legacy", connected: true }]);
      const tools = await new McpToolSet(hub, { log: recordingLog() }).tools();
      const { text } = await callTool(byName(tools, "whoami"));
      expect(JSON.parse(text)).toEqual({ transport: "sse", apiKey: http.apiKey });
    } finally {
      await hub.close();
    }
  });

  it("reports an HTTP server that refuses the connection", async () => {
    const hub = new McpHub({ remote: { url: http.mcpUrl } }, recordingLog());
    try {
      const [status] = await hub.connectAll();
      expect(status).toMatchObject({ name: "remote", connected: false });
      expect(status!.error).toMatch(/401|unauthorized|x-api-key/i);
    } finally {
      await hub.close();
    }
  });

  it("reset() drops a client and the next use reconnects", async () => {
    const hub = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, recordingLog());
    try {
      const first = await hub.client("kitchen");
      expect(await hub.client("kitchen")).toBe(first);
      await hub.reset("kitchen");
      expect(hub.status()).toEqual([{ name: "kitchen", connected: false }]);
      const second = await hub.client("kitchen");
      expect(second).not.toBe(first);
      expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await hub.close();
    }
  });

  it("concurrent first uses share one connection", async () => {
    const hub = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, recordingLog());
    try {
      const [a, b] = await Promise.all([hub.client("kitchen"), hub.client("kitchen")]);
      expect(a).toBe(b);
    } finally {
      await hub.close();
    }
  });

  it("close() during a connect leaves no live client behind", async () => {
    const hub = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, recordingLog());
    const pending = hub.client("kitchen");
    await hub.close();
    await expect(pending).rejects.toThrow(/closed while connecting/);
    expect(hub.status()).toEqual([{ name: "kitchen", connected: false }]);
    // The hub can still be used (and closed) afterwards.
    expect((await (await hub.client("kitchen")).listTools()).tools.length).toBeGreaterThan(0);
    await hub.close();
    expect(hub.status()).toEqual([{ name: "kitchen", connected: false }]);
  });

  it("an unknown server name is an error", async () => {
    const hub = new McpHub({}, recordingLog());
    await expect(hub.client("nope")).rejects.toThrow('Unknown MCP server "nope"');
    expect(await hub.connectAll()).toEqual([]);
  });
});
