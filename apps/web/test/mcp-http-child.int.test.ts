import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../server/config.js";
import { McpCallLog } from "../server/mcp/call-log.js";
import { startMcpHttpChild } from "../server/mcp/http-child.js";
import type { Logger } from "../server/log.js";
import { MCP_SERVER_BIN, waitUntil } from "./agent-helpers.js";
import { makeWorkspace } from "./helpers.js";

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: string, data?: Record<string, unknown>) => lines.push(`${m} ${JSON.stringify(data ?? {})}`);
  return { lines, info: push, warn: push, error: push };
}

describe("loadConfig (MCP over HTTP)", () => {
  it("serves on 127.0.0.1:3001 by default, with no fixed token, and passes only known variables to the children", () => {
    const cfg = loadConfig({ PATH: "/usr/bin", EXEC_TIMEOUT_SEC: "9", OPENAI_API_KEY: "k" }, "/tmp");
    expect(cfg.mcpHttp).toEqual({ host: "127.0.0.1", port: 3001, token: undefined });
    expect(cfg.mcpEnv).toEqual({ PATH: "/usr/bin", EXEC_TIMEOUT_SEC: "9" });
  });

  it("turns it off with MCP_HTTP_PORT=off, takes port 0, and rejects a bad port or a short token", () => {
    expect(loadConfig({ MCP_HTTP_PORT: "off" }).mcpHttp).toBeUndefined();
    expect(loadConfig({ MCP_HTTP_PORT: "0" }).mcpHttp?.port).toBe(0);
    expect(() => loadConfig({ MCP_HTTP_PORT: "70000" })).toThrow(/MCP_HTTP_PORT/);
    expect(() => loadConfig({ MCP_HTTP_TOKEN: "short" })).toThrow(/MCP_HTTP_TOKEN/);
  });
});

describe("startMcpHttpChild", () => {
  it("does not restart a child that refuses its configuration (exit code 2)", async () => {
    const ws = await makeWorkspace();
    const log = recordingLogger();
    const child = startMcpHttpChild({
      bin: MCP_SERVER_BIN,
      projectRoot: ws.project,
      generatedAssets: ws.assets,
      auditLog: path.join(ws.dir, "audit.jsonl"),
      host: "127.0.0.1",
      port: 0,
      token: "too-short", // the MCP server requires 16 characters
      ideUrl: "http://127.0.0.1:9",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      logLevel: "warn",
      calls: new McpCallLog(),
      log,
      backoffMs: 10,
    });
    try {
      await waitUntil(() => log.lines.find((l) => l.includes("refused its configuration")), 10_000, "the refusal");
      await new Promise((r) => setTimeout(r, 300));
      expect(child.pid()).toBeUndefined();
      expect(log.lines.some((l) => l.includes("exited; restarting"))).toBe(false);
      expect(log.lines.join("\n")).toMatch(/at least 16 characters/);
    } finally {
      await child.close();
      await ws.remove();
    }
  });
});
