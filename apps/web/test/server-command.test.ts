import { describe, expect, it } from "vitest";
import { loadConfig } from "../server/config.js";
import { mcpServerCommand, pickMcpEnv } from "../server/mcp/server-command.js";

const settings = {
  bin: "/app/mcp.js",
  projectRoot: "/w/project",
  generatedAssets: "/w/assets",
  auditLog: "/data/audit.jsonl",
  ideUrl: "http://127.0.0.1:3000",
  ideToken: "ide-secret",
  env: { PATH: "/usr/bin" },
  logLevel: "info",
};

describe("the bundled MCP server's command line", () => {
  it("passes the exec settings the MCP server reads, and nothing else from the environment", () => {
    const env = pickMcpEnv({
      PATH: "/usr/bin",
      EXEC_RUNNERS: "3",
      EXEC_TIMEOUT_SEC: "20",
      PY_EXEC_TIMEOUT_SEC: "40",
      ANTHROPIC_API_KEY: "k",
    });
    expect(env).toEqual({ PATH: "/usr/bin", EXEC_RUNNERS: "3", EXEC_TIMEOUT_SEC: "20", PY_EXEC_TIMEOUT_SEC: "40" });
    expect(loadConfig({ EXEC_RUNNERS: "3", OPENAI_API_KEY: "k" }, "/tmp").mcpEnv).toEqual({ EXEC_RUNNERS: "3" });
  });

  it("builds the stdio and the HTTP child from the same settings; tokens travel in env, never argv", () => {
    const stdio = mcpServerCommand(settings);
    const http = mcpServerCommand(settings, { host: "127.0.0.1", port: 0, token: "http-secret-0123456789" });
    expect(stdio.command).toBe(process.execPath);
    expect(stdio.args).toEqual([
      "/app/mcp.js",
      "--root",
      "/w/project",
      "--assets",
      "/w/assets",
      "--audit-log",
      "/data/audit.jsonl",
      "--ide-url",
      "http://127.0.0.1:3000",
    ]);
    expect(http.args.slice(0, 6)).toEqual(["/app/mcp.js", "--http", "--host", "127.0.0.1", "--port", "0"]);
    expect(http.args.slice(6)).toEqual(stdio.args.slice(1));
    expect(stdio.env).toEqual({ PATH: "/usr/bin", LOG_LEVEL: "info", TEXTIDE_IDE_TOKEN: "ide-secret" });
    expect(http.env).toMatchObject({ MCP_HTTP_TOKEN: "http-secret-0123456789", TEXTIDE_IDE_TOKEN: "ide-secret" });
    expect([...stdio.args, ...http.args].join(" ")).not.toMatch(/secret/);
  });
});
