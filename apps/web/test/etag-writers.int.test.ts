import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";

// Issue 11, item 2: writers that read → change → save with the etag they read never both succeed.
// Each writer appends its own line and retries on `conflict`; every acknowledged line must be in
// the final file. The MCP writers are a real mcp-fs-server process beside the web server.
const MCP_BIN = fileURLToPath(new URL("../../mcp-fs-server/dist/index.js", import.meta.url));
const COMMITS_PER_WRITER = 150;

let ws: Workspace;
let server: Running;
let mcp: Client[] = [];

interface Writer {
  name: string;
  read(file: string): Promise<{ content: string; etag: string }>;
  /** True when acknowledged, false on a conflict. */
  save(file: string, content: string, etag: string): Promise<boolean>;
}

function restWriter(name: string): Writer {
  return {
    name,
    async read(file) {
      const res = await request(server.port, "GET", `/api/file?path=${file}`, { headers: { connection: "close" } });
      const body = res.json() as { content: string; etag: string };
      return { content: body.content, etag: body.etag };
    },
    async save(file, content, etag) {
      const res = await request(server.port, "PUT", `/api/file?path=${file}`, {
        body: { content, expectedEtag: etag },
        headers: { connection: "close" },
      });
      if (res.status === 409) return false;
      if (res.status !== 200) throw new Error(`save answered ${res.status}: ${res.body.toString()}`);
      return true;
    },
  };
}

function mcpWriter(name: string, client: Client): Writer {
  return {
    name,
    async read(file) {
      const res = (await client.callTool({ name: "fs_read_file", arguments: { path: file } })) as {
        content: { type: string; text?: string }[];
        structuredContent: { etag: string };
      };
      return { content: res.content.find((c) => c.type === "text")?.text ?? "", etag: res.structuredContent.etag };
    },
    async save(file, content, etag) {
      const res = (await client.callTool({
        name: "fs_write_file",
        arguments: { path: file, content, expectedEtag: etag },
      })) as { isError?: boolean; structuredContent?: unknown; content: { text?: string }[] };
      if (!res.isError) return true;
      if (res.content[0]?.text?.includes("changed since it was read")) return false;
      throw new Error(`fs_write_file failed: ${res.content[0]?.text}`);
    },
  };
}

/** Each writer appends `COMMITS_PER_WRITER` lines of its own, retrying on conflict; returns the acknowledged lines. */
async function race(file: string, writers: Writer[]): Promise<{ acked: string[]; conflicts: number }> {
  await writeFile(path.join(ws.project, file), "start\n");
  const acked: string[] = [];
  let conflicts = 0;
  await Promise.all(
    writers.map(async (w) => {
      for (let n = 0; n < COMMITS_PER_WRITER; n++) {
        const line = `${w.name}-${n}`;
        for (;;) {
          const { content, etag } = await w.read(file);
          if (await w.save(file, `${content}${line}\n`, etag)) break;
          conflicts++;
        }
        acked.push(line);
      }
    }),
  );
  return { acked, conflicts };
}

async function connectMcp(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN, "--root", ws.project, "--assets", ws.assets, "--no-exec"],
    env: { LOG_LEVEL: "warn", PATH: process.env.PATH ?? "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "etag-writer", version: "1.0.0" });
  await client.connect(transport);
  mcp.push(client);
  return client;
}

beforeAll(async () => {
  ws = await makeWorkspace();
  server = await startServer(ws);
}, 60_000);

afterAll(async () => {
  await Promise.all(mcp.map((c) => c.close()));
  mcp = [];
  await server?.close();
  await ws?.remove();
});

describe("etag-checked saves from concurrent writers (issue 11)", () => {
  const cases: [string, () => Promise<Writer[]>][] = [
    ["REST + REST", () => Promise.resolve([0, 1, 2, 3].map((k) => restWriter(`rest${k}`)))],
    [
      "MCP + MCP (two server processes)",
      async () => {
        const [a, b] = [await connectMcp(), await connectMcp()];
        return [mcpWriter("mcpA0", a), mcpWriter("mcpA1", a), mcpWriter("mcpB0", b), mcpWriter("mcpB1", b)];
      },
    ],
    [
      "MCP + REST (the MCP server process and the web server)",
      async () => {
        const a = await connectMcp();
        return [mcpWriter("mcp0", a), mcpWriter("mcp1", a), restWriter("rest0"), restWriter("rest1")];
      },
    ],
  ];

  it.each(cases)(
    "%s: no acknowledged update is lost",
    async (label, make) => {
      const file = `notes/etag-${label.replace(/\W+/g, "-")}.txt`;
      const { acked, conflicts } = await race(file, await make());
      const final = (await readFile(path.join(ws.project, file), "utf8")).split("\n");
      expect(acked.length).toBeGreaterThanOrEqual(600);
      // The writers did collide, so the compare was exercised, not avoided.
      expect(conflicts).toBeGreaterThan(0);
      const lost = acked.filter((line) => !final.includes(line));
      expect(lost).toEqual([]);
      expect(final.filter((l) => l !== "" && l !== "start")).toHaveLength(acked.length);
    },
    300_000,
  );
});
