import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { TOOL } from "@textide/shared";
import { makeWorkspace, type TmpWorkspace } from "../helpers/tmp-root.js";
import { FILES } from "./checks.js";
import { serverArgs, startHttpServer, TOKEN, type HttpServer } from "./servers.js";

// Issue 14 with @langchain/mcp-adapters' MultiServerMCPClient (SDK 1.x underneath, so 2025-11-25 only),
// one server over stdio and one over Streamable HTTP, as a LangChain agent would load them.

// Real processes on a shared machine: a busy one makes them slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

let ws: TmpWorkspace;
let http: HttpServer;
let client: MultiServerMCPClient;
const tools = new Map<string, Map<string, DynamicStructuredTool>>();

beforeAll(async () => {
  [ws, http] = await Promise.all([makeWorkspace(FILES), startHttpServer(FILES)]);
  client = new MultiServerMCPClient({
    throwOnLoadError: true,
    useStandardContentBlocks: true,
    mcpServers: {
      stdio: { transport: "stdio", command: process.execPath, args: serverArgs(ws), stderr: "ignore" },
      http: {
        transport: "http",
        url: http.url,
        headers: { authorization: `Bearer ${TOKEN}` },
        automaticSSEFallback: false,
      },
    },
  });
  for (const server of ["stdio", "http"]) {
    const loaded = await client.getTools(server);
    tools.set(server, new Map(loaded.map((t) => [t.name, t])));
  }
}, 120_000);

afterAll(async () => {
  await client?.close();
  await Promise.allSettled([http?.stop(), ws?.cleanup()]);
});

/** The text a LangChain tool hands the model (a string, or standard content blocks). */
function textOf(out: unknown): string {
  if (typeof out === "string") return out;
  const blocks = Array.isArray(out) ? out : [out];
  return blocks.map((b) => (b as { text?: string }).text ?? "").join("\n");
}

describe.each(["stdio", "http"])("LangChain MCP adapters over %s", (server) => {
  const tool = (name: string) => {
    const t = tools.get(server)!.get(name);
    if (!t) throw new Error(`${name} was not loaded from ${server}`);
    return t;
  };

  it("loads every tool with its JSON schema and calls one", async () => {
    expect([...tools.get(server)!.keys()]).toEqual(
      expect.arrayContaining([TOOL.readFile, TOOL.searchFiles, TOOL.runJs]),
    );
    expect(JSON.stringify(tool(TOOL.readFile).schema)).toContain("maxBytes");
    expect(textOf(await tool(TOOL.searchFiles).invoke({ query: "planets" }))).toContain("data/planets.xlsx");
  });

  it("turns a tool error into a ToolException that carries the server's message", async () => {
    await expect(tool(TOOL.readFile).invoke({ path: "data/no-such-file.csv" })).rejects.toThrow(
      /not_found: .*data\/no-such-file\.csv/,
    );
  });

  it("reads a 2.5 MB file as a page of at most 1 MB that says where to go on", async () => {
    const text = textOf(await tool(TOOL.readFile).invoke({ path: "big.txt", maxBytes: 1_048_576 }));
    expect(text.length).toBeGreaterThan(500_000);
    expect(text).toMatch(/\[truncated: bytes 0–\d+ of \d+; call fs_read_file again with offset=\d+ to continue\]/);
  });

  it("runs exec_run_js and hands the model the result", async () => {
    const out = textOf(await tool(TOOL.runJs).invoke({ code: "return (await readTable('data/planets.xlsx')).length" }));
    expect(out).toMatch(/Result: 8/);
  });
});
