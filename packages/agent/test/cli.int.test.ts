import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, type Workspace } from "./helpers/bundled-server.js";

const run = promisify(execFile);
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let ws: Workspace;

beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.cleanup());

/** The environment of a machine with no model configured: the offline planner is the default. */
function offlineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEXTIDE_DATA_DIR: path.join(ws.base, "data"),
  };
  return env;
}

describe("the agent CLI (offline planner, bundled server over stdio)", () => {
  it("makes the planets pie chart, prints the path, and --json reports the run", async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        CLI,
        "--json",
        "--root",
        ws.project,
        "--assets",
        ws.assets,
        "pie chart of the largest planets from planets.xlsx",
      ],
      { env: offlineEnv(), timeout: 60_000 },
    );
    const out = JSON.parse(stdout) as {
      model: string;
      final: string;
      toolCalls: { name: string; isError: boolean }[];
      outputs: string[];
      trace: unknown[];
    };
    expect(out.model).toBe("offline");
    expect(out.outputs.length).toBeGreaterThan(0);
    const png = out.outputs.find((o) => o.endsWith(".png"))!;
    expect(png).toMatch(/^generated_assets\/.+\.png$/);
    expect(out.final).toContain(png);
    expect((await stat(path.join(ws.assets, png.replace(/^generated_assets\//, "")))).size).toBeGreaterThan(5000);
    expect(out.toolCalls.map((c) => c.name)).toEqual(expect.arrayContaining(["fs_search_files", "exec_run_js"]));
    expect(out.trace.length).toBeGreaterThan(3);
    expect(stderr).toContain("Offline planner");
  });

  it("streams events and the answer in human mode, and keeps the thread", async () => {
    const args = [CLI, "--root", ws.project, "--assets", ws.assets, "--thread", "cli-thread"];
    const first = await run(process.execPath, [...args, "list the files in data"], {
      env: offlineEnv(),
      timeout: 60_000,
    });
    expect(first.stderr).toMatch(/→ fs_(list_directory|search_files)/);
    expect(first.stdout).toContain("planets.xlsx");
    const second = await run(process.execPath, [...args, "--json", "hello again"], {
      env: offlineEnv(),
      timeout: 60_000,
    });
    const trace = (JSON.parse(second.stdout) as { trace: { role: string }[] }).trace;
    expect(trace.filter((m) => m.role === "user")).toHaveLength(2);
  });

  it("explains usage without a request", async () => {
    const failure = (await run(process.execPath, [CLI], { env: offlineEnv() }).catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain("Usage: npm run agent");
  });
});
