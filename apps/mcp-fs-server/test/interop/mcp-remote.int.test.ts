import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { checkLargePage, checkToolsListCallAndError, FILES, type AnyClient, type ToolResultLike } from "./checks.js";
import { BIN, startHttpServer, TOKEN, type HttpServer } from "./servers.js";

// Issue 14 through mcp-remote, the stdio↔HTTP proxy that stdio-only hosts (Claude Desktop's config,
// among others) put in front of a remote server, driven by an SDK 1.x client over its stdio. Its
// OAuth support must stay offline: a private HOME and config dir, no display, a PATH with only node,
// and a server that never gets as far as an authorization URL.

// Real processes on a shared machine: a busy one makes them slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

let http: HttpServer;
let home: string;
const closers: (() => Promise<void>)[] = [];
const clients = new Map<string, AnyClient>();

const remoteEnv = () => ({
  HOME: home,
  MCP_REMOTE_CONFIG_DIR: path.join(home, ".mcp-auth"),
  PATH: path.dirname(process.execPath),
});
const remoteArgs = (token: string, ...extra: string[]) => [
  BIN("mcp-remote"),
  http.url,
  "--header",
  `Authorization: Bearer ${token}`,
  ...extra,
];

beforeAll(async () => {
  [http, home] = await Promise.all([startHttpServer(FILES), mkdtemp(path.join(os.tmpdir(), "textide-mcp-remote-"))]);
  const connect = async (name: string, protocol: string) => {
    const client = new Client({ name: `via mcp-remote ${name}`, version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: remoteArgs(TOKEN, "--protocol", protocol),
        env: remoteEnv(),
        stderr: "ignore",
      }),
    );
    closers.push(() => client.close());
    clients.set(name, {
      listTools: () => client.listTools(),
      call: async (tool, args) =>
        (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as ToolResultLike,
    });
  };
  await Promise.all([connect("legacy", "legacy"), connect("auto", "auto")]);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  await Promise.allSettled([http?.stop(), home && rm(home, { recursive: true, force: true })]);
});

// `--protocol legacy` opens a 2025-11-25 session upstream; `auto` lets mcp-remote negotiate the revision.
describe.each(["legacy", "auto"])("mcp-remote --protocol %s to the HTTP server", (name) => {
  it("lists the tools, calls one, and passes a tool error through", async () => {
    await checkToolsListCallAndError(clients.get(name)!);
  });

  it("carries a 1 MB page of a 2.5 MB file", async () => {
    await checkLargePage(clients.get(name)!);
  });
});

describe("mcp-remote with a wrong token", () => {
  it("exits reporting the token as wrong (invalid_token), never reaching an authorization URL", async () => {
    const child = spawn(process.execPath, remoteArgs("wrong-token-0123456789abcdef"), {
      env: remoteEnv(),
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain("invalid_token: the bearer token sent to this MCP server is wrong.");
    expect(stderr).toContain("It takes the bearer token printed when it started");
    expect(stderr).not.toMatch(/HTTP 404|Please authorize|Browser opened/);
  }, 60_000);
});
