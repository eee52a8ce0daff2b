import { mcpCallEvent } from "@textide/shared";
import { describe, expect, it } from "vitest";
import { callFromRecord, McpCallLog, parseLogRecord, type McpCallSource } from "../server/mcp/call-log.js";

/** A stderr line as the web server reads it: the JSON record, then the call it describes. */
function parseCallLine(line: string, source: McpCallSource) {
  const record = parseLogRecord(line);
  return record && callFromRecord(record, source);
}
import { childLogLevel, childStderr } from "../server/mcp/child-stderr.js";
import type { Logger } from "../server/log.js";

/** Lines as apps/mcp-fs-server's pino logger writes them (tools/result.ts). */
const okLine = JSON.stringify({
  level: 30,
  time: Date.parse("2026-11-02T10:00:00.000Z"),
  svc: "mcp-fs-server",
  event: "tool_call",
  tool: "fs_read_file",
  correlationId: "run-1:call_1",
  args: { path: "data/planets.csv" },
  ms: 3.25,
  outcome: "ok",
  msg: "tool call",
});
const errorLine = JSON.stringify({
  level: 30,
  time: Date.parse("2026-11-02T10:00:01.000Z"),
  event: "tool_call",
  tool: "fs_read_file",
  correlationId: "c-2",
  args: { path: "../etc/passwd" },
  ms: 0.4,
  outcome: "outside_roots",
  msg: "tool call",
});
const internalLine = JSON.stringify({
  level: 50,
  time: 1,
  event: "tool_call",
  tool: "fs_search_files",
  correlationId: "c-3",
  args: { query: "x" },
  ms: 1,
  outcome: "internal",
  err: { message: "boom" },
  msg: "tool call failed unexpectedly",
});

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: string) => lines.push(m);
  return { lines, info: push, warn: push, error: push };
}

describe("parseCallLine", () => {
  it("reads the MCP server's tool-call lines, ok and error, into the shared event shape", () => {
    const ok = parseCallLine(okLine, "agent");
    expect(ok).toEqual({
      at: "2026-11-02T10:00:00.000Z",
      source: "agent",
      tool: "fs_read_file",
      durationMs: 3.25,
      status: "ok",
      args: { path: "data/planets.csv" },
      correlationId: "run-1:call_1",
    });
    expect(parseCallLine(errorLine, "external")).toMatchObject({ status: "outside_roots", source: "external" });
    expect(parseCallLine(internalLine, "agent")).toMatchObject({ tool: "fs_search_files", status: "internal" });
  });

  it("ignores other log lines, stray text, broken JSON and call lines missing fields", () => {
    for (const line of [
      JSON.stringify({ level: 30, msg: "serving MCP over stdio" }),
      "Error: something crashed",
      "{not json",
      JSON.stringify({ level: 30, event: "tool_call", tool: "x", ms: -1, outcome: "ok" }),
      JSON.stringify({ level: 30, event: "tool_call", ms: 1, outcome: "ok" }),
      // The message is for people: without the `event` field a line is not a call record.
      JSON.stringify({ level: 30, msg: "tool call", tool: "x", ms: 1, outcome: "ok" }),
    ])
      expect(parseCallLine(line, "agent"), line).toBeUndefined();
  });
});

describe("McpCallLog", () => {
  it("keeps the last 500 calls oldest first, with unique ids even when a retry reuses a correlation id", () => {
    const log = new McpCallLog();
    const seen: string[] = [];
    log.onCall((c) => seen.push(c.id));
    const call = parseCallLine(okLine, "agent")!;
    log.add(call);
    log.add(call);
    expect(log.list().map((c) => c.id)).toEqual(["run-1:call_1", "run-1:call_1#2"]);
    for (let i = 0; i < 600; i++) log.add({ ...call, correlationId: `c${i}` });
    const list = log.list();
    expect(list).toHaveLength(500);
    expect(list[0]!.id).toBe("c100");
    expect(list.at(-1)!.id).toBe("c599");
    expect(seen).toHaveLength(602);
    for (const c of list) expect(() => mcpCallEvent.parse(c)).not.toThrow();
  });
});

describe("childStderr", () => {
  it("splits chunks into lines across chunk boundaries; calls go to the log, other lines by level", () => {
    const calls = new McpCallLog();
    const log = recordingLogger();
    const stderr = childStderr({ calls, source: "agent", log, label: "mcp:agent", level: "warn" });
    const info = JSON.stringify({ level: 30, msg: "serving MCP over stdio" });
    const warn = JSON.stringify({ level: 40, msg: "bubblewrap is not available" });
    const text = `${info}\n${okLine}\n${warn}\nplain crash text ü\n${errorLine}`;
    const bytes = Buffer.from(text);
    // Odd-sized chunks, splitting lines and the two-byte "ü".
    for (let i = 0; i < bytes.length; i += 7) stderr.write(bytes.subarray(i, i + 7));
    expect(calls.list().map((c) => c.status)).toEqual(["ok"]);
    stderr.end();
    expect(calls.list().map((c) => c.status)).toEqual(["ok", "outside_roots"]);
    expect(log.lines).toEqual([`[mcp:agent] ${warn}`, "[mcp:agent] plain crash text ü"]);
  });

  it("hands the listening record's URL to onListening instead of the log", () => {
    const urls: string[] = [];
    const log = recordingLogger();
    const stderr = childStderr({
      calls: new McpCallLog(),
      source: "external",
      log,
      label: "mcp:http",
      level: "debug",
      onListening: (url) => urls.push(url),
    });
    const line = { level: 30, event: "listening", url: "http://127.0.0.1:41234/mcp", auth: "bearer" };
    stderr.write(`${JSON.stringify(line)}\n`);
    stderr.write(`${JSON.stringify({ ...line, url: "not a url" })}\n`);
    expect(urls).toEqual(["http://127.0.0.1:41234/mcp"]);
    expect(log.lines).toHaveLength(1);
  });

  it("runs the children at info at most, so that their call lines are written", () => {
    expect(childLogLevel("warn")).toBe("info");
    expect(childLogLevel("silent")).toBe("info");
    expect(childLogLevel("debug")).toBe("debug");
    expect(childLogLevel("nonsense")).toBe("info");
  });
});
