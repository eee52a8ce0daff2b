import { spawn, type ChildProcess } from "node:child_process";
import { constants, existsSync, openSync } from "node:fs";
import { mkdir, realpath, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "socket.io-client";
import { connectClient, makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";
import {
  attempts as raceAttempts,
  clearReal as clearRealFolders,
  snapshot,
} from "../../../packages/shared/test/fixtures/race.mjs";

// Issue 11, item 1: while a racer swaps `race/d` between a real folder and a symlink to a folder
// outside the roots, no operation of the REST API may touch (or list, or read) anything outside.
// The racer pauses 2 ms between round trips here: the server's file watcher re-lists `race/d` each
// time it comes back, and a racer at full speed would spend the test's time in the watcher.
const ATTEMPTS = Number(process.env.RACE_ATTEMPTS ?? 2000);
const CONCURRENCY = 16;
// The race is about path resolution, not the disk: on tmpfs the writes' fsyncs cost nothing, which
// keeps 2,000 attempts of every operation affordable in the suite.
if (existsSync("/dev/shm")) process.env.TMPDIR = "/dev/shm";
const SWAPPER = fileURLToPath(new URL("../../../packages/shared/test/fixtures/swapper.mjs", import.meta.url));
const SECRET = "SECRET-OUTSIDE";

let ws: Workspace;
let server: Running;
let swapper: ChildProcess;
let race: string;
let before: Map<string, string>;
let realDir: number;
let watcherClient: Socket;
const announced: string[] = [];

const attempts = (fn: (i: number) => Promise<void>) => raceAttempts(ATTEMPTS, CONCURRENCY, fn);

/** One request; a connection reset (a reused keep-alive socket on a loaded machine) counts as a refusal. */
const api = (method: string, url: string, opts: Parameters<typeof request>[3] = {}) =>
  request(server.port, method, url, { ...opts, headers: { connection: "close", ...opts.headers } });

async function expectOutsideUntouched(): Promise<void> {
  expect(await snapshot(ws.outside)).toEqual(before);
}

beforeAll(async () => {
  ws = await makeWorkspace();
  race = path.join(ws.project, "race");
  await mkdir(path.join(race, "d"), { recursive: true });
  // Sources and destinations of moves live beside the race, so `race` itself stays small to list.
  await mkdir(path.join(ws.project, "elsewhere"));
  // The real folder, held by descriptor: the test puts each attempt's victims into it wherever the
  // racer has moved it, so the folder stays small (a big one makes every swap a big rescan).
  realDir = openSync(path.join(race, "d"), constants.O_RDONLY | constants.O_DIRECTORY);
  // Never empty: the racer's rename of a fresh empty `d` (made by a create meanwhile) onto an empty
  // parked folder would replace, and so delete, the real one.
  await writeFile(path.join(race, "d", "keep.txt"), "keep");
  // The same names outside: an operation that follows the swapped link hits the outside twin.
  for (let i = 0; i < ATTEMPTS; i++) {
    await writeFile(path.join(ws.outside, `victim-${i}.txt`), `${SECRET} ${i}`);
    await writeFile(path.join(ws.outside, `mv-${i}.txt`), `${SECRET} ${i}`);
    await writeFile(path.join(ws.outside, `ow-${i}.txt`), `${SECRET} ${i}`);
    await mkdir(path.join(ws.outside, `sub-${i}`));
    await writeFile(path.join(ws.outside, `sub-${i}`, "f.txt"), `${SECRET} ${i}`);
  }
  await writeFile(path.join(ws.outside, "secret-marker.txt"), SECRET);
  before = await snapshot(ws.outside);
  server = await startServer(ws);
  watcherClient = await connectClient(server.base);
  watcherClient.on("file/changed", (e: { path: string }) => announced.push(e.path));
  swapper = spawn(process.execPath, [SWAPPER, race, ws.outside, "2"], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve) => swapper.stdout!.once("data", () => resolve()));
}, 120_000);

/** Puts `name` (a file, or a folder with one file when it ends in "/") into the real folder. */
async function plant(name: string): Promise<void> {
  const at = `/proc/self/fd/${realDir}/${name.replace(/\/$/, "")}`;
  if (name.endsWith("/")) {
    await mkdir(at, { recursive: true });
    await writeFile(`${at}/f.txt`, "inside");
  } else await writeFile(at, "inside");
}

/** Empties the real folder after a batch, so the next batch starts small. */
const clearReal = () => clearRealFolders([race], [realDir]);

afterAll(async () => {
  watcherClient?.close();
  swapper?.stdin?.end();
  await new Promise((r) => (swapper?.exitCode !== null ? r(undefined) : swapper.once("exit", r)));
  await server?.close();
  await ws?.remove();
});

describe("REST API against a symlink-swapping racer (issue 11)", () => {
  it("the racer is real: a realpath check and a later unlink by path do reach outside", async () => {
    // The control is what the server did before: check the realpath, then act on the path string.
    // If this never escapes, the race below proves nothing.
    await writeFile(path.join(ws.outside, "control.txt"), "c");
    for (let i = 0; i < 20_000; i++) {
      await plant("control.txt");
      const checked = await realpath(path.join(race, "d", "control.txt")).catch(() => "");
      if (checked.startsWith(`${ws.project}/`)) await unlink(checked).catch(() => undefined);
      if (!existsSync(path.join(ws.outside, "control.txt"))) return;
    }
    throw new Error("the racer never got between a realpath check and the unlink in 20,000 tries");
  }, 120_000);

  it("DELETE of files and folders never deletes outside", async () => {
    await unlink(path.join(ws.outside, "control.txt")).catch(() => undefined);
    await attempts(async (i) => {
      await plant(`victim-${i}.txt`);
      await plant(`sub-${i}/`);
      await api("DELETE", `/api/fs?path=race/d/victim-${i}.txt`);
      await api("DELETE", `/api/fs?path=race/d/sub-${i}`);
      if (i % 25 === 24) await clearReal();
    });
    await clearReal();
    await expectOutsideUntouched();
  }, 900_000);

  it("create, rename and upload never create or move anything outside", async () => {
    await attempts(async (i) => {
      await plant(`mv-${i}.txt`);
      await writeFile(path.join(ws.project, "elsewhere", `src-${i}.txt`), `move me ${i}`);
      await api("POST", "/api/fs/create", { body: { path: `race/d/new-${i}.txt`, type: "file" } });
      await api("POST", "/api/fs/create", { body: { path: `race/d/newdir-${i}/deep`, type: "directory" } });
      await api("POST", "/api/fs/rename", { body: { from: `race/d/mv-${i}.txt`, to: `elsewhere/moved-${i}.txt` } });
      await api("POST", "/api/fs/rename", { body: { from: `elsewhere/src-${i}.txt`, to: `race/d/in-${i}.txt` } });
      await api("PUT", `/api/upload?path=race/d/up-${i}.txt`, { rawBody: Buffer.from(`upload ${i}`) });
      if (i % 25 === 24) await clearReal();
    });
    await clearReal();
    await expectOutsideUntouched();
  }, 900_000);

  it("saves (with and without etag) never write outside", async () => {
    await attempts(async (i) => {
      await plant(`ow-${i}.txt`);
      await api("PUT", `/api/file?path=race/d/ow-${i}.txt`, { body: { content: `saved ${i}` } });
      await api("PUT", `/api/file?path=race/d/saved-${i}.txt`, { body: { content: `saved ${i}` } });
      if (i % 25 === 24) await clearReal();
    });
    await clearReal();
    await expectOutsideUntouched();
  }, 900_000);

  it("tree listings and reads never show what is outside", async () => {
    const leaks: string[] = [];
    await attempts(async (i) => {
      const tree = await api("GET", "/api/tree?path=race/d");
      if (tree.body.toString().includes("secret-marker")) leaks.push(`tree ${i}`);
      const deep = await api("GET", "/api/tree?path=race&depth=2");
      if (deep.body.toString().includes("secret-marker")) leaks.push(`tree depth 2 ${i}`);
      const file = await api("GET", "/api/file?path=race/d/secret-marker.txt");
      if (file.body.toString().includes(SECRET)) leaks.push(`file ${i}`);
      await plant(`victim-${i}.txt`);
      const raw = await api("GET", `/api/raw?path=race/d/victim-${i}.txt`);
      if (raw.body.toString().includes(SECRET)) leaks.push(`raw ${i}`);
      if (i % 25 === 24) await clearReal();
    });
    expect(leaks).toEqual([]);
    await expectOutsideUntouched();
  }, 900_000);

  it("the watcher announced files of the race but never one that exists only outside", () => {
    expect(announced.some((p) => p.startsWith("race/d/"))).toBe(true);
    expect(announced.filter((p) => p.includes("secret-marker"))).toEqual([]);
  });

  it("still serves the workspace after the race", async () => {
    const res = await api("GET", "/api/tree?path=.");
    expect(res.status).toBe(200);
  });
});
