import { copyFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserSkipReason,
  screenshot,
  startIde,
  startWebProcess,
  type IdeRun,
  type WebProcess,
} from "./browser-harness.js";
import type { Workspace } from "./helpers.js";
import { css, editorShows, ide, imageLoaded } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[ide.e2e] skipped: ${browserSkipReason}`);

describe.skipIf(browserSkipReason !== undefined)("IDE in a real browser", () => {
  let session: IdeRun;
  let ws: Workspace;
  let server: WebProcess;
  let page: Page;

  beforeAll(async () => {
    session = await startIde();
    ({ ws, server, page } = session);
  }, 60_000);

  afterAll(() => session?.close());

  it("lists the workspace; data/planets.xlsx is in the tree", async () => {
    await page.click(css.treeRow("data"));
    await page.waitForSelector(css.treeRow("data/planets.xlsx"), { timeout: 10_000 });
    await page.waitForSelector(css.connected, { timeout: 10_000 });
  });

  it("opens README.md in Monaco", async () => {
    await page.click(css.treeRow("README.md"));
    // Markdown opens in the rendered preview; its source is one toggle away.
    await page.click(css.viewToggle("README.md", "Source"));
    await page.waitForSelector(css.panelEditorLines("README.md"), { timeout: 15_000 });
    await page.waitForFunction(editorShows("README.md", "Sample workspace"), undefined, { timeout: 10_000 });
  });

  it("saves an edit with Ctrl+S", async () => {
    await page.click(css.panelEditorLines("README.md"));
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nEdited in the e2e test.\n");
    await page.keyboard.press("Control+s");
    await expect
      .poll(() => readFile(path.join(ws.project, "README.md"), "utf8"), { timeout: 10_000 })
      .toContain("Edited in the e2e test.");
    await page.waitForSelector(`${css.saveStatus("README.md")}[data-status="saved"]`, { timeout: 5_000 });
  });

  it("shows a generated image written atomically from outside", async () => {
    const dest = path.join(ws.assets, "charts", "solar.png");
    await mkdir(path.dirname(dest), { recursive: true });
    const tmp = path.join(path.dirname(dest), ".solar.png.0123456789abcdef.tmp");
    await copyFile(path.join(ws.project, "images/solar-system.png"), tmp);
    await rename(tmp, dest);
    const p = "generated_assets/charts/solar.png";
    try {
      await page.waitForSelector(css.selectedTreeRow(p), { timeout: 10_000 });
    } catch (err) {
      await screenshot(page, "ide-fail");
      console.log(`[ide.e2e] page console:\n${session.consoleLines.join("\n")}`);
      throw err;
    }
    await page.waitForFunction(imageLoaded(p), undefined, { timeout: 10_000 });
  });

  it("opens a file on POST /api/open-file", async () => {
    const res = await fetch(`${server.base}/api/open-file`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "data/observatories.csv" }),
    });
    expect(res.status).toBe(200);
    const p = "data/observatories.csv";
    await page.waitForSelector(css.activeTab(p), { timeout: 10_000 });
    try {
      await page.waitForSelector(css.panelTableRow(p), { timeout: 10_000 });
    } catch (err) {
      await screenshot(page, "ide-open-file-fail");
      throw err;
    }
    await screenshot(page, "ide");
    await ide(page).themeToggle.click();
    await page.click(css.treeRow("data/missions.json"));
    await page.waitForSelector(css.panelEditorLines("data/missions.json"), { timeout: 15_000 });
    await screenshot(page, "ide-toggled-theme");
    expect(session.pageErrors).toEqual([]);
    // No CDN at run time: Monaco, its workers and fonts all come from this server.
    expect(session.requested.filter((u) => !u.startsWith(`${server.base}/`) && !/^(data|blob):/.test(u))).toEqual([]);
  });

  it("resyncs the tree after a reconnect: a file added while the server was down appears", async () => {
    const port = new URL(server.base).port;
    await server.stop();
    await page.waitForSelector(css.connected, { state: "detached", timeout: 10_000 });
    await writeFile(path.join(ws.project, "added-while-offline.txt"), "hello\n");
    server = session.server = await startWebProcess(ws, { PORT: port });
    await page.waitForSelector(css.connected, { timeout: 20_000 });
    await page.waitForSelector(css.treeRow("added-while-offline.txt"), { timeout: 10_000 });
  }, 60_000);
});
