import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapWorks, runnerCommand } from "../src/exec/sandbox-command.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/sandbox-probe.mjs");
let ws: TmpWorkspace;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.cleanup());

function runProbe(mode: "bwrap" | "none"): Promise<Record<string, unknown>> {
  const cmd = runnerCommand({ mode, runnerPath: probe, projectRoot: ws.project, assetsRoot: ws.assets });
  const child = spawn(cmd.command, cmd.args, {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { PATH: process.env.PATH ?? "" },
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m as Record<string, unknown>));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`probe exited ${code}`)));
  });
}

describe.skipIf(!bwrapWorks())("the runner's bubblewrap sandbox", () => {
  it("runs unprivileged, without network, with project_root read-only and only generated_assets writable", async () => {
    expect(
      runnerCommand({ mode: "auto", runnerPath: probe, projectRoot: ws.project, assetsRoot: ws.assets }).sandbox,
    ).toBe("bubblewrap");
    const r = await runProbe("bwrap");
    expect(r.uid).toBe(65534);
    expect(r.writeAssets).toBe("ok");
    expect(r.writeProject).toBe("EROFS");
    expect(r.readProject).toBe("ok");
    expect(r.readShadow).toBe("ENOENT"); // /etc is not mounted at all
    expect(r.net).not.toBe("connected");
    expect(r.env).not.toContain("HOME"); // bwrap passes only the environment it is given (plus PWD)
  });
});

describe("without bubblewrap", () => {
  it("falls back to plain node when asked, and the pool reports it", async () => {
    const cmd = runnerCommand({ mode: "none", runnerPath: probe, projectRoot: ws.project, assetsRoot: ws.assets });
    expect(cmd).toMatchObject({ command: process.execPath, sandbox: "none" });
    expect(cmd.args).toContain("--no-node-snapshot");
    const r = await runProbe("none");
    expect(r.writeAssets).toBe("ok");
  });
});
