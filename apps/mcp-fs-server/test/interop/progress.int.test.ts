import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TOOL } from "@textide/shared";
import { makeWorkspace, type TmpWorkspace } from "../helpers/tmp-root.js";
import { serverArgs, startHttpServer, TOKEN, type HttpServer } from "./servers.js";

// Issue 14, item 3: a call that carries `_meta.progressToken` hears `notifications/progress` back,
// through the SDK clients' own `onprogress` (v2 over stdio and both HTTP revisions, 1.x over stdio).

interface Report {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}
type Call = (name: string, args: Record<string, unknown>, onprogress: (p: Report) => void) => Promise<unknown>;

/** A tree big enough that a search reports while it walks. */
const MANY_FILES = Object.fromEntries(
  Array.from({ length: 1500 }, (_, i) => [`many/d${i % 30}/note-${i}.txt`, i % 500 === 0 ? "needle here" : "hay"]),
);
const BIG_TEXT = "x".repeat(300_000);
const CHART_CODE = `await chart({ data: { values: [{ a: "x", b: 1 }, { a: "y", b: 2 }] }, mark: "bar",
  encoding: { x: { field: "a", type: "nominal" }, y: { field: "b", type: "quantitative" } } }, "progress-bars", { format: "svg" });
return 1;`;

// Real processes on a shared machine: a busy one makes them slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

let ws: TmpWorkspace;
let http: HttpServer;
const clients: { close(): Promise<void> }[] = [];
const calls: Record<string, Call> = {};

beforeAll(async () => {
  ws = await makeWorkspace({ ...MANY_FILES, "big.txt": BIG_TEXT });
  http = await startHttpServer({ ...MANY_FILES, "big.txt": BIG_TEXT });
  const v2 = async (name: string, transport: StdioClientTransport | StreamableHTTPClientTransport, legacy: boolean) => {
    const client = new Client({ name, version: "1" }, { versionNegotiation: { mode: legacy ? "legacy" : "auto" } });
    await client.connect(transport);
    clients.push(client);
    calls[name] = (tool, args, onprogress) =>
      client.callTool({ name: tool, arguments: args }, { onprogress, timeout: 60_000 });
  };
  const httpTransport = () =>
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
  const v1 = new ClientV1({ name: "sdk-1.x", version: "1" });
  await Promise.all([
    v2("v2 stdio", new StdioClientTransport({ command: process.execPath, args: serverArgs(ws) }), false),
    v2("v2 http 2025-11-25", httpTransport(), true),
    v2("v2 http 2026-07-28", httpTransport(), false),
    v1.connect(new StdioV1({ command: process.execPath, args: serverArgs(ws) })),
  ]);
  clients.push(v1);
  calls["sdk 1.x stdio"] = (tool, args, onprogress) =>
    v1.callTool({ name: tool, arguments: args }, undefined, { onprogress, timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([http?.stop(), ws?.cleanup()]);
});

async function reportsOf(client: string, tool: string, args: Record<string, unknown>): Promise<Report[]> {
  const reports: Report[] = [];
  await calls[client]!(tool, args, (p) => reports.push(p));
  // Each report grows: the spec's rule, and what lets a client draw a bar that never goes back.
  for (let i = 1; i < reports.length; i++) expect(reports[i]!.progress).toBeGreaterThan(reports[i - 1]!.progress);
  return reports;
}

describe.each(["v2 stdio", "v2 http 2025-11-25", "v2 http 2026-07-28", "sdk 1.x stdio"])("progress to %s", (client) => {
  it("exec_run_js reports queued, running and rendering", async () => {
    const reports = await reportsOf(client, TOOL.runJs, { code: CHART_CODE });
    expect(reports.map((r) => r.message)).toEqual([
      "queued: waiting for a free sandbox",
      "running",
      "rendering chart progress-bars",
    ]);
  });

  it("fs_search_files reports the entries it scanned and the files it read", async () => {
    const reports = await reportsOf(client, TOOL.searchFiles, { path: "many", content: "needle" });
    expect(reports.some((r) => /^\d+ entries scanned$/.test(r.message ?? ""))).toBe(true);
    const last = reports.at(-1)!;
    // The server sends its final report (progress = total) before the result, but the SDK clients handle
    // a notification a tick after a response that arrives in the same read and then drop it; on a busy
    // machine the last report a client keeps can be a "files read" one.
    if (last.total === last.progress) {
      expect(last.message).toMatch(/^\d+ entries scanned$/);
      expect(Number(last.message!.split(" ")[0])).toBeGreaterThanOrEqual(1500);
    } else {
      expect(last.message).toMatch(/^\d+ of \d+ files read$/);
      expect(last.total).toBeGreaterThan(last.progress);
    }
  });

  it("a paged fs_read_file reports where the page ends in the file", async () => {
    // A page's one report goes out just before its result; a client that gets both in one read drops the
    // report (see above), which a busy machine makes likely. The server sends it every time, so a few
    // calls hear it at least once, and nothing heard may be wrong.
    const heard: Report[][] = [];
    for (let i = 0; i < 5 && !heard.some((r) => r.length > 0); i++) {
      heard.push(await reportsOf(client, TOOL.readFile, { path: "big.txt", offset: 100_000, maxBytes: 50_000 }));
    }
    for (const reports of heard) expect(reports.length).toBeLessThanOrEqual(1);
    expect(heard.at(-1)).toEqual([
      { progress: 150_000, total: 300_000, message: "bytes 100000–150000 of 300000 read" },
    ]);
  });
});
