import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { classifyCallError, isAbortError, isMcpToolError, type McpToolError } from "../../src/mcp/errors.js";
import { McpHub } from "../../src/mcp/hub.js";
import { McpToolSet, type ToolSetOptions } from "../../src/mcp/tools.js";
import { fixtureSpec, recordingLog } from "../fixtures/mcp/servers.js";
import { byName, callTool } from "./call.js";

const log = recordingLog();
let dir: string;
let attemptsFile: string;
let hub: McpHub;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "textide-mcp-errors-"));
  attemptsFile = path.join(dir, "attempts.log");
  await writeFile(attemptsFile, "");
  hub = new McpHub(
    {
      primary: fixtureSpec("flaky-server", { FIXTURE_LABEL: "primary", ATTEMPTS_FILE: attemptsFile }),
      backup: fixtureSpec("flaky-server", { FIXTURE_LABEL: "backup", ATTEMPTS_FILE: attemptsFile, HEALTHY: "1" }),
    },
    log,
  );
  expect((await hub.connectAll()).every((s) => s.connected)).toBe(true);
});
afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => writeFile(attemptsFile, ""));

/** The calls the servers received, in order: "primary crash", "backup crash", … */
async function attempts(): Promise<string[]> {
  return (await readFile(attemptsFile, "utf8")).split("\n").filter(Boolean);
}

type FallbackInfo = Parameters<NonNullable<ToolSetOptions["beforeFallback"]>>[0];

/** The primary server's tools (the backup's are only a fallback), 2 retries with a short backoff. */
async function primaryTools(opts: Partial<ToolSetOptions> = {}) {
  const fallbacks: FallbackInfo[] = [];
  const set = new McpToolSet(hub, {
    log,
    retries: 2,
    backoffMs: 5,
    fallback: { primary: "backup" },
    beforeFallback: (info) => void fallbacks.push(info),
    predicate: (t) => t.server === "primary",
    ...opts,
  });
  return { tools: await set.tools(), fallbacks };
}

async function rejection(p: Promise<unknown>): Promise<McpToolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isMcpToolError(err)) throw new Error(`expected an McpToolError, got ${String(err)}`);
  return err;
}

describe("domain errors", () => {
  it("come back as data (artifact.isError) without retry and without fallback", async () => {
    const { tools, fallbacks } = await primaryTools();
    const { text, artifact } = await callTool(byName(tools, "domain_error"));
    expect(text).toBe("not_found: no such planet");
    expect(artifact).toMatchObject({ server: "primary", mcpName: "domain_error", isError: true });
    expect(artifact.servedBy).toBeUndefined();
    expect(await attempts()).toEqual(["primary domain_error"]);
    expect(fallbacks).toEqual([]);
  });
});

describe("protocol errors", () => {
  it("are retried, then sent to the fallback server after beforeFallback", async () => {
    const { tools, fallbacks } = await primaryTools();
    const { text, artifact } = await callTool(byName(tools, "protocol_error"));
    expect(await attempts()).toEqual([
      "primary protocol_error",
      "primary protocol_error",
      "primary protocol_error",
      "backup protocol_error",
    ]);
    expect(text).toBe("protocol_error served by backup");
    expect(artifact).toMatchObject({ servedBy: "backup", isError: false, mcpName: "protocol_error" });
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatchObject({ server: "primary", fallback: "backup", tool: "protocol_error" });
    expect(fallbacks[0]!.error.errorClass).toBe("protocol");
    expect(fallbacks[0]!.error.message).toContain("planet must be a string");
  });

  it("include JSON-RPC errors with application-defined codes (the server answered: no reconnect)", async () => {
    const { tools } = await primaryTools({ retries: 0, fallback: {} });
    const err = await rejection(callTool(byName(tools, "app_error")));
    expect(err.errorClass).toBe("protocol");
    expect(err.message).toContain("quota exceeded");
    expect(await attempts()).toEqual(["primary app_error"]);
    expect(hub.status().find((s) => s.name === "primary")?.connected).toBe(true);
  });

  it("are not mistaken for a cancellation when the server's message says 'aborted'", async () => {
    const { tools, fallbacks } = await primaryTools();
    const { text } = await callTool(byName(tools, "upstream_aborted"));
    expect(text).toBe("upstream_aborted served by backup");
    expect(await attempts()).toEqual([...Array<string>(3).fill("primary upstream_aborted"), "backup upstream_aborted"]);
    expect(fallbacks.map((f) => f.error.errorClass)).toEqual(["protocol"]);
  });

  it("fail the call when beforeFallback returns false", async () => {
    const seen: FallbackInfo[] = [];
    const { tools } = await primaryTools({ beforeFallback: (info) => (seen.push(info), false) });
    const err = await rejection(callTool(byName(tools, "protocol_error")));
    expect(err.errorClass).toBe("protocol");
    expect(err.server).toBe("primary");
    expect(err.tool).toBe("protocol_error");
    expect(seen).toHaveLength(1);
    expect(await attempts()).toEqual(Array(3).fill("primary protocol_error"));
  });

  it("fail after the retries when no fallback is configured", async () => {
    const { tools } = await primaryTools({ retries: 1, fallback: undefined });
    const err = await rejection(callTool(byName(tools, "protocol_error")));
    expect(err.errorClass).toBe("protocol");
    expect(await attempts()).toEqual(Array(2).fill("primary protocol_error"));
  });
});

describe("transport errors", () => {
  it("reconnect and retry, then go to the fallback server; the primary recovers afterwards", async () => {
    const { tools, fallbacks } = await primaryTools();
    const { text, artifact } = await callTool(byName(tools, "crash"));
    // Each attempt ran in a fresh server process (the previous one exited).
    expect(await attempts()).toEqual(["primary crash", "primary crash", "primary crash", "backup crash"]);
    expect(text).toBe("crash served by backup");
    expect(artifact.servedBy).toBe("backup");
    expect(fallbacks.map((f) => [f.server, f.fallback, f.tool, f.error.errorClass])).toEqual([
      ["primary", "backup", "crash", "transport"],
    ]);
    // Lazy reconnect: the next call to the primary starts it again.
    expect((await callTool(byName(tools, "ok"))).text).toBe("ok served by primary");
  });
});

describe("timeouts and cancellation", () => {
  let kitchen: McpHub;
  beforeAll(() => {
    kitchen = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, log);
  });
  afterAll(() => kitchen.close());

  it("a call slower than timeoutMs fails with a transport error, and the server works again afterwards", async () => {
    const set = new McpToolSet(kitchen, { log, timeoutMs: 150, retries: 0 });
    const slow = byName(await set.tools(), "slow");
    const started = performance.now();
    const err = await rejection(callTool(slow, { ms: 10_000 }));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(err.errorClass).toBe("transport");
    expect(err.message).toMatch(/timed out/i);
    expect((await callTool(slow, { ms: 1 })).text).toBe("waited 1 ms");
  });

  it("an aborted call fails at once: no retry, no fallback", async () => {
    const fallbacks: FallbackInfo[] = [];
    const own = recordingLog();
    const set = new McpToolSet(kitchen, {
      log: own,
      retries: 2,
      backoffMs: 5,
      fallback: { kitchen: "kitchen" },
      beforeFallback: (info) => void fallbacks.push(info),
    });
    const slow = byName(await set.tools(), "slow");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const err = await callTool(slow, { ms: 10_000 }, { signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(Error);
    expect(isMcpToolError(err)).toBe(false);
    expect(fallbacks).toEqual([]);
    expect(own.lines.filter((l) => l.msg === "tool call failed")).toEqual([]);
  });
});

describe("classifyCallError", () => {
  it("treats JSON-RPC error answers as protocol errors and everything else as transport", () => {
    expect(classifyCallError({ code: -32602 })).toBe("protocol");
    expect(classifyCallError({ code: -32603 })).toBe("protocol");
    expect(classifyCallError({ code: -32000 })).toBe("transport"); // connection closed
    expect(classifyCallError({ code: -32001 })).toBe("transport"); // request timeout
    expect(classifyCallError(new TypeError("fetch failed"))).toBe("transport");
    expect(classifyCallError(Object.assign(new Error("spawn x ENOENT"), { code: "ENOENT" }))).toBe("transport");
    // JSON-RPC answers with application-defined codes; HTTP statuses from the HTTP transports.
    expect(classifyCallError(new McpError(4001, "quota exceeded"))).toBe("protocol");
    expect(classifyCallError(new McpError(-1, "custom"))).toBe("protocol");
    expect(classifyCallError(new McpError(ErrorCode.ConnectionClosed, "closed"))).toBe("transport");
    expect(classifyCallError(new StreamableHTTPError(503, "Service Unavailable"))).toBe("transport");
  });

  it("recognises cancellations, but not a server error that mentions 'aborted'", () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(controller.signal.reason)).toBe(true);
    expect(isAbortError(new Error("aborted"))).toBe(true);
    expect(isAbortError(new McpError(ErrorCode.InternalError, "upstream request aborted"))).toBe(false);
    expect(isAbortError(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe(false);
  });
});
