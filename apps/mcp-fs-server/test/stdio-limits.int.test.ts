import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL, writeFileOutput } from "@textide/shared";
import { MAX_WRITE_BYTES } from "../src/tools/fs/write-support.js";
import { MAX_MESSAGE_BYTES } from "../src/transports/limits.js";
import { makeWorkspace, SERVER_BIN, type TmpWorkspace } from "./helpers/tmp-root.js";

// Issue 11, item 3: a stdio line over the SDK's 10 MiB buffer left the server deaf (it stopped
// reading stdin and never exited), although fs_write_file accepts 20 MiB of content.

const MIB = 1024 * 1024;
let ws: TmpWorkspace;
let server: RawServer;

interface RawServer {
  child: ChildProcessWithoutNullStreams;
  /** The next line the server writes on stdout, parsed. */
  next(): Promise<Record<string, unknown>>;
  /** Writes `text` and a newline, waiting for the pipe to drain. */
  sendLine(text: string): Promise<void>;
  /** Writes one line of `bytes` bytes in 1 MiB pieces, never holding it whole. */
  sendLongLine(bytes: number): Promise<void>;
  /** Peak resident memory of the server so far, from /proc; undefined where there is none. */
  peakRssBytes(): Promise<number | undefined>;
}

function spawnRaw(): RawServer {
  const child = spawn(process.execPath, [SERVER_BIN, "--root", ws.project, "--assets", ws.assets], { stdio: "pipe" });
  child.stderr.resume();
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (l) => {
    const waiter = waiters.shift();
    if (waiter) waiter(l);
    else lines.push(l);
  });
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      child.stdin.write(data, (err) => (err ? reject(err) : resolve()));
    });
  return {
    child,
    next: () =>
      new Promise((resolve) => {
        const parse = (l: string) => resolve(JSON.parse(l) as Record<string, unknown>);
        const queued = lines.shift();
        if (queued === undefined) waiters.push(parse);
        else parse(queued);
      }),
    sendLine: (text) => write(`${text}\n`),
    async sendLongLine(bytes) {
      const piece = Buffer.alloc(MIB, "x");
      for (let sent = 0; sent < bytes; sent += MIB) await write(piece.subarray(0, Math.min(MIB, bytes - sent)));
      await write("\n");
    },
    async peakRssBytes() {
      const status = await readFile(`/proc/${child.pid}/status`, "utf8").catch(() => undefined);
      const kb = status && /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      return kb ? Number(kb) * 1024 : undefined;
    },
  };
}

/** A tools/call line with `id` last, the order the SDK's client serializes in. */
function writeCallIdLast(id: number, file: string, content: string, encoding: "utf8" | "base64"): string {
  const params = { name: TOOL.writeFile, arguments: { path: file, content, encoding } };
  return JSON.stringify({ method: "tools/call", params, jsonrpc: "2.0", id });
}

beforeAll(async () => {
  ws = await makeWorkspace({}, false);
  server = spawnRaw();
  await server.sendLine(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  );
  expect(await server.next()).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
  await server.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
});
afterAll(async () => {
  server.child.kill();
  await ws.cleanup();
});

describe("stdio line limit (issue 11)", { timeout: 120_000 }, () => {
  it("lets a maximal fs_write_file call through: the transport limit covers the tool limit", () => {
    const base64Length = Math.ceil(MAX_WRITE_BYTES / 3) * 4;
    const envelope = writeCallIdLast(Number.MAX_SAFE_INTEGER, "generated_assets/some/deep/name.bin", "", "base64");
    expect(base64Length + envelope.length + 4096).toBeLessThan(MAX_MESSAGE_BYTES);
    expect(MAX_MESSAGE_BYTES).toBeLessThan(30 * MIB);
  });

  it("drops a 160 MiB line that is not JSON without holding it in memory, answering with id null", async () => {
    const before = await server.peakRssBytes();
    await server.sendLongLine(160 * MIB);
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32000 } });
    const after = await server.peakRssBytes();
    // Holding the line would take 160 MiB more; reading up to the limit before dropping takes ~28.
    if (before !== undefined && after !== undefined) expect(after - before).toBeLessThan(100 * MIB);
  });

  it("writes an 11 MiB file sent as one line (over the SDK's 10 MiB buffer)", async () => {
    await server.sendLine(writeCallIdLast(2, "eleven.txt", "a".repeat(11 * MIB), "utf8"));
    const reply = await server.next();
    expect(reply).toMatchObject({ id: 2, result: { structuredContent: { bytes: 11 * MIB } } });
    expect((await stat(path.join(ws.project, "eleven.txt"))).size).toBe(11 * MIB);
  });

  it("writes a maximal binary file (20 MiB as base64, id first)", async () => {
    const data = randomBytes(MAX_WRITE_BYTES);
    const params = {
      name: TOOL.writeFile,
      arguments: { path: "max.bin", content: data.toString("base64"), encoding: "base64" },
    };
    await server.sendLine(JSON.stringify({ jsonrpc: "2.0", id: "max", method: "tools/call", params }));
    const reply = await server.next();
    expect(reply).toMatchObject({ id: "max", result: { structuredContent: { created: true } } });
    const out = writeFileOutput.parse((reply.result as { structuredContent: unknown }).structuredContent);
    expect(out.bytes).toBe(MAX_WRITE_BYTES);
    expect((await readFile(path.join(ws.project, "max.bin"))).equals(data)).toBe(true);
  });

  it("answers a 30 MiB request with an error carrying its id, and writes nothing", async () => {
    await server.sendLine(writeCallIdLast(3, "thirty.txt", "b".repeat(30 * MIB), "utf8"));
    const reply = await server.next();
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32000 } });
    const message = (reply.error as { message: string }).message;
    expect(message).toMatch(/^Message too large: the line is 3\d{7} bytes/);
    expect(message).toContain(`at most ${MAX_MESSAGE_BYTES} bytes`);
    expect(message).toContain('encoding "base64"');
    expect(existsSync(path.join(ws.project, "thirty.txt"))).toBe(false);
  });

  it("keeps serving normal requests afterwards", async () => {
    await server.sendLine(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: TOOL.getFileInfo, arguments: { path: "eleven.txt" } },
      }),
    );
    expect(await server.next()).toMatchObject({ id: 5, result: { structuredContent: { size: 11 * MIB } } });
    await server.sendLine(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }));
    expect(await server.next()).toMatchObject({ id: 6, result: {} });
    expect(server.child.exitCode).toBeNull();
  });
});
