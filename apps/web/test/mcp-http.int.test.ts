import type { Client } from "@modelcontextprotocol/client";
import { mcpCallEvent, openFileEvent, type McpCallEvent, type OpenFileEvent } from "@textide/shared";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./agent-helpers.js";
import { connectClient, makeWorkspace, request, type Workspace } from "./helpers.js";
import { connectMcp, mcpChildPid, notBuiltReason, startMcpWebProcess, type McpWebProcess } from "./browser-harness.js";

if (notBuiltReason) console.warn(`[mcp-http] skipped: ${notBuiltReason}`);

describe.skipIf(notBuiltReason !== undefined)(
  "npm start's web server also serves the bundled MCP server over Streamable HTTP",
  () => {
    let ws: Workspace;
    let srv: McpWebProcess;
    let socket: Socket;
    const opened: OpenFileEvent[] = [];
    const calls: McpCallEvent[] = [];

    beforeAll(async () => {
      ws = await makeWorkspace();
      srv = await startMcpWebProcess(ws);
      socket = await connectClient(srv.base);
      socket.on("file/open", (e: unknown) => opened.push(openFileEvent.parse(e)));
      socket.on("mcp/call", (e: unknown) => calls.push(mcpCallEvent.parse(e)));
      await socket.timeout(15_000).emitWithAck("mcp/watch", { watch: true });
    });

    afterAll(async () => {
      socket?.close();
      await srv?.stop();
      await ws?.remove();
    });

    it("prints the real MCP URL (port 0 resolved), a generated token and an Inspector example", () => {
      const { port } = new URL(srv.mcpUrl);
      expect(Number(port)).toBeGreaterThan(0);
      expect(srv.mcpUrl).toBe(`http://127.0.0.1:${port}/mcp`);
      expect(srv.token.length).toBeGreaterThanOrEqual(16);
      expect(srv.output()).toContain(
        `npx @modelcontextprotocol/inspector --cli ${srv.mcpUrl} --transport http --header "Authorization: Bearer ${srv.token}"`,
      );
    });

    it("an external client lists the tools and system_open_file reaches the browsers; calls land in the log", async () => {
      const client = await connectMcp(srv.mcpUrl, srv.token);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["fs_read_file", "system_open_file"]));
        const result = await client.callTool({ name: "system_open_file", arguments: { path: "README.md", line: 2 } });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        await waitUntil(() => opened.find((e) => e.path === "README.md"), 3000, "file/open");
        expect(opened).toEqual([{ path: "README.md", line: 2 }]);

        const bad = await client.callTool({ name: "fs_read_file", arguments: { path: "../outside.txt" } });
        expect(bad.isError).toBe(true);
        await waitUntil(() => calls.length >= 2 || undefined, 3000, "two mcp/call events");
        expect(calls.map((c) => [c.source, c.tool, c.status])).toEqual([
          ["external", "system_open_file", "ok"],
          ["external", "fs_read_file", "outside_root"],
        ]);
        const logged = (await request(Number(new URL(srv.base).port), "GET", "/api/mcp-calls")).json() as {
          calls: McpCallEvent[];
        };
        expect(logged.calls).toEqual(calls);
      } finally {
        await client.close();
      }
    });

    it("refuses a client without the token", async () => {
      await expect(connectMcp(srv.mcpUrl, "wrong-token-0123456789")).rejects.toThrow();
    });

    it("restarts the MCP HTTP child when it dies, on the same URL", async () => {
      const before = mcpChildPid(srv.child.pid!);
      expect(before).toBeDefined();
      process.kill(before!, "SIGKILL");
      const after = await waitUntil(
        () => {
          const pid = mcpChildPid(srv.child.pid!);
          return pid !== undefined && pid !== before ? pid : undefined;
        },
        10_000,
        "a new MCP HTTP child",
      );
      expect(after).not.toBe(before);
      // The new child listens a moment after it is spawned.
      let connected: Client | undefined;
      const end = Date.now() + 10_000;
      while (!connected) {
        connected = await connectMcp(srv.mcpUrl, srv.token).catch(() => undefined);
        if (!connected && Date.now() > end) throw new Error(`no MCP server at ${srv.mcpUrl}:\n${srv.output()}`);
        if (!connected) await new Promise((r) => setTimeout(r, 100));
      }
      try {
        expect((await connected.listTools()).tools.length).toBeGreaterThan(3);
      } finally {
        await connected.close();
      }
      expect(srv.output()).toMatch(/MCP HTTP server exited; restarting/);
    });

    it("leaves no MCP HTTP child behind when the web server is SIGKILLed", async () => {
      const pid = mcpChildPid(srv.child.pid!);
      expect(pid).toBeDefined();
      const exited = new Promise((r) => srv.child.once("exit", r));
      srv.child.kill("SIGKILL");
      await exited;
      const alive = (): boolean => {
        try {
          process.kill(pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      await waitUntil(() => !alive() || undefined, 5000, `MCP HTTP child ${pid} to exit`);
    });
  },
);
