import { spawn } from "node:child_process";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { tempNameFor } from "@textide/shared/node";
import { afterEach, describe, expect, it } from "vitest";
import { makeWorkspace, startServer, type Running, type Workspace } from "./helpers.js";

// Issue 11, item 6: a server killed during a save leaves its temp file; the next start removes it,
// and leaves alone the temp files of writers that are still alive.
let ws: Workspace | undefined;
let server: Running | undefined;

afterEach(async () => {
  await server?.close();
  await ws?.remove();
  server = ws = undefined;
});

/** A real writer process that opens a temp file beside `target`, writes part of it and is SIGKILLed. */
async function killedWriter(dir: string, name: string): Promise<string> {
  const script = `
    const { openTemp, DirHandle } = await import("@textide/shared/node");
    const dir = DirHandle.open(${JSON.stringify(dir)}, ${JSON.stringify(dir)});
    const { tmp, handle } = await openTemp(dir, ${JSON.stringify(name)});
    await handle.write(Buffer.from("half a save"));
    process.stdout.write(tmp + "\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: path.dirname(new URL(import.meta.url).pathname),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const tmp = await new Promise<string>((resolve) =>
    child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())),
  );
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  return tmp;
}

describe("files left by interrupted saves (issue 11)", () => {
  it("start-up removes a killed writer's temp file and a stale lock, and keeps a live writer's temp", async () => {
    ws = await makeWorkspace();
    const notes = path.join(ws.project, "notes");
    const killed = await killedWriter(notes, "draft.md");
    // Two seconds of grace after the writer's death, without waiting for them.
    const old = new Date(Date.now() - 10_000);
    await utimes(path.join(notes, killed), old, old);
    const alive = tempNameFor("mine.md"); // this process: alive
    await writeFile(path.join(notes, alive), "in progress");
    await utimes(path.join(notes, alive), old, old);
    const lock = path.join(ws.assets, ".chart.png.textide-lock");
    await mkdir(lock);
    const stale = new Date(Date.now() - 60_000);
    await utimes(lock, stale, stale);
    expect(await readdir(notes)).toContain(killed);

    server = await startServer(ws);
    await expect.poll(async () => (await readdir(notes)).includes(killed), { timeout: 10_000 }).toBe(false);
    await expect.poll(async () => (await readdir(ws!.assets)).includes(".chart.png.textide-lock")).toBe(false);
    expect(await readdir(notes)).toContain(alive);
  });
});
