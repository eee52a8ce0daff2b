import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, type Workspace } from "./helpers.js";

const WEB = fileURLToPath(new URL("../", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const SERVER = path.join(WEB, "dist/server/index.js");
const BUILT = existsSync(SERVER) && existsSync(path.join(WEB, ".next/BUILD_ID"));
const RESULTS = path.join(WEB, "test-results");

const skipReason = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is absent (apt-get install -y chromium)`
  : !BUILT
    ? "apps/web is not built (npm run build -w apps/web)"
    : undefined;
if (skipReason) console.warn(`[ide.e2e] skipped: ${skipReason}`);

/** Starts the production server on a free port; resolves with its base URL once it prints it. */
function startServer(ws: Workspace): Promise<{ child: ChildProcess; base: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    // Not the fixed default 3001: this test does not use the MCP endpoint for external clients.
    MCP_HTTP_PORT: "off",
    PROJECT_ROOT: ws.project,
    GENERATED_ASSETS: ws.assets,
    TEXTIDE_DATA_DIR: path.join(ws.dir, "data"),
  };
  delete env.TEXTIDE_IDE_TOKEN;
  const child = spawn(process.execPath, [SERVER], {
    cwd: WEB,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 25_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, base: m[1] });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}

describe.skipIf(skipReason !== undefined)("IDE in a real browser", () => {
  let ws: Workspace;
  let server: { child: ChildProcess; base: string };
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    ws = await makeWorkspace();
    server = await startServer(ws);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    page.on("pageerror", (err) => pageErrors.push(err.message));
    page.on("console", (m) => consoleLines.push(m.text()));
    page.on("request", (r) => requested.push(r.url()));
    await page.goto(server.base);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.child.kill("SIGTERM");
    await ws?.remove();
  });

  const row = (p: string): string => `.file-tree [data-path="${p}"]`;
  const panel = (p: string): string => `.tab-panel[data-path="${p}"]`;

  it("lists the workspace; data/planets.xlsx is in the tree", async () => {
    await page.click(row("data"));
    await page.waitForSelector(row("data/planets.xlsx"), { timeout: 10_000 });
    await page.waitForSelector(".conn.ok", { timeout: 10_000 });
  });

  it("opens README.md in Monaco", async () => {
    await page.click(row("README.md"));
    const lines = `${panel("README.md")} .monaco-editor .view-lines`;
    await page.waitForSelector(lines, { timeout: 15_000 });
    // A string expression: this file is type-checked without the DOM lib.
    await page.waitForFunction(
      `document.querySelector(${JSON.stringify(lines)})?.textContent?.replace(/\\u00a0/g, " ").includes("Sample workspace")`,
      undefined,
      {
        timeout: 10_000,
      },
    );
  });

  it("saves an edit with Ctrl+S", async () => {
    await page.click(`${panel("README.md")} .monaco-editor .view-lines`);
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nEdited in the e2e test.\n");
    await page.keyboard.press("Control+s");
    await expect
      .poll(() => readFile(path.join(ws.project, "README.md"), "utf8"), { timeout: 10_000 })
      .toContain("Edited in the e2e test.");
    await page.waitForSelector(`${panel("README.md")} .save-status[data-status="saved"]`, { timeout: 5_000 });
  });

  it("shows a generated image written atomically from outside", async () => {
    const dest = path.join(ws.assets, "charts", "solar.png");
    await mkdir(path.dirname(dest), { recursive: true });
    const tmp = path.join(path.dirname(dest), ".solar.png.0123456789abcdef.tmp");
    await copyFile(path.join(ws.project, "images/solar-system.png"), tmp);
    await rename(tmp, dest);
    const p = "generated_assets/charts/solar.png";
    try {
      await page.waitForSelector(`${row(p)}.selected`, { timeout: 10_000 });
    } catch (err) {
      await mkdir(RESULTS, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS, "ide-fail.png") });
      console.log(`[ide.e2e] page console:\n${consoleLines.join("\n")}`);
      throw err;
    }
    const img = JSON.stringify(`${panel(p)} img`);
    await page.waitForFunction(
      `(() => { const img = document.querySelector(${img}); return !!img && img.complete && img.naturalWidth > 0; })()`,
      undefined,
      { timeout: 10_000 },
    );
  });

  it("opens a file on POST /api/open-file", async () => {
    const res = await fetch(`${server.base}/api/open-file`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "data/observatories.csv" }),
    });
    expect(res.status).toBe(200);
    const p = "data/observatories.csv";
    await page.waitForSelector(`.tab.active[data-path="${p}"]`, { timeout: 10_000 });
    await page.waitForSelector(`${panel(p)} table tbody tr`, { timeout: 10_000 });
    await mkdir(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, "ide.png") });
    await page.click('button[aria-label="Toggle theme"]');
    await page.click(row(p.replace("observatories.csv", "missions.json")));
    await page.waitForSelector(`${panel("data/missions.json")} .monaco-editor .view-lines`, { timeout: 15_000 });
    await page.screenshot({ path: path.join(RESULTS, "ide-toggled-theme.png") });
    expect(pageErrors).toEqual([]);
    // No CDN at run time: Monaco, its workers and fonts all come from this server.
    expect(requested.filter((u) => !u.startsWith(`${server.base}/`) && !/^(data|blob):/.test(u))).toEqual([]);
  });
});
