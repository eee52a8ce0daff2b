import { existsSync } from "node:fs";
import { utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempNameFor } from "@textide/shared/node";
import { connectInMemory } from "./helpers/connect.js";
import { pythonUnavailableHere } from "./helpers/python.js";
import { serverArgs } from "./helpers/serve.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

// Over stdio the binary holds back start-up work no handshake needs (the sweep for files left by
// interrupted writes, exec_run_python's sandbox check) until the client is past initialize and
// tools/list. Held back must not mean lost: these check that the work still happens, whatever the
// client does after initialize.

const unavailable = await pythonUnavailableHere();
let ws: TmpWorkspace | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await ws?.cleanup();
  client = ws = undefined;
});

async function connect(workspace: TmpWorkspace, ...extra: string[]): Promise<Client> {
  const c = new Client({ name: "startup-test", version: "1" });
  await c.connect(
    new StdioClientTransport({ command: process.execPath, args: serverArgs(workspace, ...extra), stderr: "ignore" }),
  );
  return c;
}

/** A temp file of a writer that is gone, two hours old: what a save killed midway leaves. */
async function leftoverTemp(workspace: TmpWorkspace): Promise<string> {
  const file = path.join(workspace.project, tempNameFor("notes.txt"));
  await writeFile(file, "half a save");
  const old = new Date(Date.now() - 2 * 3600_000);
  await utimes(file, old, old);
  return file;
}

async function gone(file: string, withinMs = 30_000): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end; await sleep(25)) if (!existsSync(file)) return true;
  return !existsSync(file);
}

describe("the built binary (start-up bundle)", () => {
  // The bundle answers tools/list from JSON Schemas converted at build time (src/tools/listed-schemas.ts);
  // the server run from source converts the zod schemas as it lists. Both must list the same tools.
  it("lists the same tools, schemas and descriptions as the server run from source", async () => {
    ws = await makeWorkspace({}, false);
    client = await connect(ws);
    const fromSource = await connectInMemory({ copySample: false });
    try {
      const [built, source] = await Promise.all([client.listTools(), fromSource.client.listTools()]);
      expect(built.tools.map((t) => t.name)).toContain("fs_read_file");
      expect(built.tools).toEqual(source.tools);
    } finally {
      await fromSource.close();
    }
  }, 60_000);

  it("still validates arguments against the tools' zod schemas", async () => {
    ws = await makeWorkspace({ "a.txt": "hello" }, false);
    client = await connect(ws, "--no-exec");
    const bad = await client.callTool({ name: "fs_read_file", arguments: { path: 5 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/path/);
    const good = await client.callTool({ name: "fs_read_file", arguments: { path: "a.txt" } });
    expect(JSON.stringify(good.content)).toContain("hello");
  }, 60_000);
});

describe("stdio start-up: work held back until the handshake is over", () => {
  it("removes a killed save's temp file once tools/list is answered", async () => {
    ws = await makeWorkspace({}, false);
    const file = await leftoverTemp(ws);
    client = await connect(ws, "--no-exec");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await gone(file)).toBe(true);
  }, 60_000);

  it("removes it too when the client sends nothing after initialize", async () => {
    ws = await makeWorkspace({}, false);
    const file = await leftoverTemp(ws);
    client = await connect(ws, "--no-exec");
    expect(await gone(file)).toBe(true);
  }, 60_000);

  it.skipIf(unavailable !== undefined)(
    "answers exec_run_python as the first request after initialize (its sandbox check is not left waiting)",
    async () => {
      ws = await makeWorkspace({}, false);
      client = await connect(ws);
      const res = await client.callTool({ name: "exec_run_python", arguments: { code: "print(6 * 7)" } });
      expect(res.isError).toBeFalsy();
      expect(JSON.stringify(res.content)).toContain("42");
    },
    120_000,
  );
});
