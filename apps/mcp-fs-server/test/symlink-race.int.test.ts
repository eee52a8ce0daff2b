import { spawn, type ChildProcess } from "node:child_process";
import { constants, existsSync, openSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attempts as raceAttempts,
  clearReal as clearRealFolders,
  snapshot,
} from "../../../packages/shared/test/fixtures/race.mjs";
import { connectInMemory, textOf, type Connected } from "./helpers/connect.js";

// Issue 11, item 1: while a racer swaps `race/d` between a real folder and a symlink to a folder
// outside the roots, no MCP tool and no exec run may touch, list or read anything outside.
const ATTEMPTS = Number(process.env.RACE_ATTEMPTS ?? 2000);
const CONCURRENCY = 16;
// The race is about path resolution, not the disk: on tmpfs the writes' fsyncs cost nothing, which
// keeps 2,000 attempts of every operation affordable in the suite.
if (existsSync("/dev/shm")) process.env.TMPDIR = "/dev/shm";
const SWAPPER = fileURLToPath(new URL("../../../packages/shared/test/fixtures/swapper.mjs", import.meta.url));
const SECRET = "SECRET-OUTSIDE";

let c: Connected;
let outside: string;
let swappers: ChildProcess[] = [];
let before: Map<string, string>;
const realDirs: number[] = [];

const attempts = (fn: (i: number) => Promise<void>, count = ATTEMPTS) => raceAttempts(count, CONCURRENCY, fn);

async function startSwapper(raceDir: string): Promise<void> {
  const child = spawn(process.execPath, [SWAPPER, raceDir, outside], { stdio: ["pipe", "pipe", "inherit"] });
  swappers.push(child);
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
}

beforeAll(async () => {
  c = await connectInMemory({ copySample: false, exec: { auditLog: "", sandbox: "none" } });
  outside = await mkdtemp(path.join(os.tmpdir(), "textide-outside-"));
  for (const root of [c.ws.project, c.ws.assets]) {
    const inside = path.join(root, "race", "d");
    await mkdir(inside, { recursive: true });
    // Never empty (the racer's rename of an empty `d` made meanwhile would replace an empty real folder).
    await writeFile(path.join(inside, "keep.txt"), "keep");
    realDirs.push(openSync(inside, constants.O_RDONLY | constants.O_DIRECTORY));
    await startSwapper(path.join(root, "race"));
  }
  await mkdir(path.join(c.ws.project, "elsewhere"));
  for (let i = 0; i < ATTEMPTS; i++) {
    await writeFile(path.join(outside, `victim-${i}.txt`), `${SECRET} ${i}`);
    await writeFile(path.join(outside, `mv-${i}.txt`), `${SECRET} ${i}`);
  }
  await writeFile(path.join(outside, "secret-marker.txt"), SECRET);
  before = await snapshot(outside);
}, 120_000);

/** Puts a file into the project's real `race/d` wherever the racer has moved it (through a held descriptor). */
const plant = (name: string, content = `inside ${name}`): Promise<void> =>
  writeFile(`/proc/self/fd/${realDirs[0]}/${name}`, content);

/** Empties both real folders but for keep.txt, so listings stay small. */
const clearReal = () =>
  clearRealFolders(
    [c.ws.project, c.ws.assets].map((root) => path.join(root, "race")),
    realDirs,
  );

afterAll(async () => {
  for (const s of swappers) s.stdin?.end();
  await Promise.all(swappers.map((s) => new Promise((r) => (s.exitCode !== null ? r(undefined) : s.once("exit", r)))));
  swappers = [];
  await c?.close();
  await rm(outside, { recursive: true, force: true });
});

describe("MCP tools against a symlink-swapping racer (issue 11)", () => {
  it("fs_write_file, fs_edit_file, fs_move_file and fs_create_directory never touch outside", async () => {
    await attempts(async (i) => {
      await plant(`victim-${i}.txt`);
      await plant(`mv-${i}.txt`, `inside ${i}`);
      await c.call("fs_write_file", { path: `race/d/victim-${i}.txt`, content: `written ${i}` });
      await c.call("fs_write_file", { path: `race/d/new-${i}/x.txt`, content: `new ${i}` });
      await c.call("fs_edit_file", { path: `race/d/mv-${i}.txt`, edits: [{ oldText: `${i}`, newText: "edited" }] });
      await c.call("fs_move_file", { source: `race/d/mv-${i}.txt`, destination: `elsewhere/moved-${i}.txt` });
      await c.call("fs_create_directory", { path: `race/d/dir-${i}/deep` });
      if (i % 100 === 99) await clearReal();
    });
    await clearReal();
    expect(await snapshot(outside)).toEqual(before);
  }, 900_000);

  it("listings, searches and reads never show what is outside", async () => {
    const leaks: string[] = [];
    await attempts(async (i) => {
      await plant(`victim-${i}.txt`);
      const list = await c.call("fs_list_directory", { path: "race", depth: 2 });
      if (JSON.stringify(list).includes("secret-marker")) leaks.push(`list ${i}`);
      const read = await c.call("fs_read_file", { path: `race/d/victim-${i}.txt` });
      if (textOf(read).includes(SECRET)) leaks.push(`read ${i}`);
      if (i % 10 === 0) {
        const search = await c.call("fs_search_files", { path: "race", query: "secret" });
        if (JSON.stringify(search).includes("secret-marker")) leaks.push(`search ${i}`);
      }
      if (i % 100 === 99) await clearReal();
    });
    await clearReal();
    expect(leaks).toEqual([]);
  }, 900_000);

  it("exec_run_js writeFile, readText and listFiles stay inside generated_assets", async () => {
    const leaks: string[] = [];
    // Each run does 20 writes and reads, so 100 runs are 2,000 attempts of each.
    await attempts(async (i) => {
      const res = await c.call("exec_run_js", {
        code: `const out = [];
          for (let k = 0; k < 20; k++) {
            try { await writeFile("race/d/victim-${i}-" + k + ".txt", "exec ${i}"); } catch (e) {}
            try { out.push(await readText("generated_assets/race/d/victim-" + k + ".txt")); } catch (e) {}
          }
          try { out.push(...(await listFiles("generated_assets/race"))); } catch (e) {}
          return out.join("\\n");`,
      });
      const text = JSON.stringify(res.structuredContent ?? {});
      if (text.includes(SECRET) || text.includes("secret-marker")) leaks.push(`exec ${i}`);
    }, ATTEMPTS / 20);
    expect(leaks).toEqual([]);
    expect(await snapshot(outside)).toEqual(before);
  }, 900_000);

  it("the server still answers after the race", async () => {
    const res = await c.call("fs_list_directory", { path: "." });
    expect(res.isError).toBeFalsy();
  });
});
