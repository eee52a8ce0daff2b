import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileOutput, searchFilesOutput, TOOL } from "@textide/shared";
import { makeWorkspace, SERVER_BIN, type TmpWorkspace } from "./helpers/tmp-root.js";

let ws: TmpWorkspace;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.cleanup());

/** Raw line-level access to the spawned binary, to see exactly what it puts on stdout. */
function spawnRaw(): {
  child: ChildProcessWithoutNullStreams;
  stdout: string[];
  stderr: string[];
  next(): Promise<Record<string, unknown>>;
  send(msg: unknown): void;
} {
  const child = spawn(process.execPath, [SERVER_BIN, "--root", ws.project, "--assets", ws.assets], { stdio: "pipe" });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (l) => {
    stdout.push(l);
    waiters.shift()?.(l);
  });
  createInterface({ input: child.stderr }).on("line", (l) => stderr.push(l));
  return {
    child,
    stdout,
    stderr,
    next: () => new Promise((resolve) => waiters.push((l) => resolve(JSON.parse(l) as Record<string, unknown>))),
    send: (msg) => child.stdin.write(typeof msg === "string" ? `${msg}\n` : `${JSON.stringify(msg)}\n`),
  };
}

describe("stdio binary", () => {
  it("speaks only JSON-RPC on stdout, logs on stderr, and survives malformed input", async () => {
    const p = spawnRaw();
    try {
      p.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      const init = await p.next();
      expect(init).toMatchObject({
        id: 1,
        result: { protocolVersion: "2025-11-25", serverInfo: { name: "textide-mcp-fs-server" } },
      });
      p.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      p.send("{this is not json"); // skipped by the SDK (tolerates stray output), not fatal
      p.send({ id: 9, foo: "not json-rpc" });
      expect(await p.next()).toMatchObject({ id: null, error: { code: -32600 } });
      p.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: TOOL.searchFiles, arguments: { query: "planets" } },
      });
      const call = await p.next();
      expect((call.result as { structuredContent: unknown }).structuredContent).toMatchObject({
        matches: [{ path: "data/planets.xlsx" }],
      });
      p.send({ jsonrpc: "2.0", id: 3, method: "no/such_method" });
      expect(await p.next()).toMatchObject({ id: 3, error: { code: -32601 } });
      p.send({ jsonrpc: "2.0", id: 4, method: "ping" });
      expect(await p.next()).toMatchObject({ id: 4, result: {} });
      for (const line of p.stdout) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
      expect(p.stderr.some((l) => (JSON.parse(l) as { tool?: string }).tool === TOOL.searchFiles)).toBe(true);
    } finally {
      p.child.kill();
    }
  });

  it("reads a 5 MiB file completely in pages with the SDK client's default buffer", async () => {
    const body = "0123456789abcdef".repeat(5 * 65536); // 5 MiB
    await writeFile(path.join(ws.project, "five-mib.txt"), body);
    const client = new Client({ name: "stdio-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVER_BIN, "--root", ws.project, "--assets", ws.assets],
        stderr: "ignore",
      }),
    );
    try {
      let offset = 0;
      let text = "";
      for (;;) {
        const r = await client.callTool({
          name: TOOL.readFile,
          arguments: { path: "five-mib.txt", offset, maxBytes: 1024 * 1024 },
        });
        const out = readFileOutput.parse(r.structuredContent);
        const block = (r.content as { type: string; text?: string }[])[0];
        text += block?.text ?? "";
        if (!out.truncated) break;
        offset = out.nextOffset!;
      }
      expect(text.length).toBe(body.length);
      expect(text === body).toBe(true);
      const after = await client.callTool({ name: TOOL.searchFiles, arguments: { query: "five" } });
      expect(searchFilesOutput.parse(after.structuredContent).matches).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("fails fast with a clear message when a root is missing", async () => {
    const child = spawn(process.execPath, [SERVER_BIN, "--root", path.join(ws.base, "missing"), "--assets", ws.assets]);
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(1);
    expect(err).toMatch(/project_root directory .*missing does not exist/);
  });

  it("prints usage for bad flags", async () => {
    const child = spawn(process.execPath, [SERVER_BIN, "--bogus"]);
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    expect(await new Promise((r) => child.on("exit", r))).toBe(2);
    expect(err).toContain("Usage: mcp-fs-server");
  });
});
