/**
 * Acceptance: the product's main flows in a real browser against the production build, with the
 * offline planner, the bundled MCP server and real files in a temp workspace.
 */
import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserSkipReason,
  MCP_BIN,
  REPO,
  screenshot,
  startIde,
  writeAtomic,
  type IdeRun,
  type WebProcess,
} from "./browser-harness.js";
import type { Workspace } from "./helpers.js";
import { css, decodedImageWidth, editorShows, ide, imageLoaded } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[acceptance.e2e] skipped: ${browserSkipReason}`);

const TOKEN = "acceptance-ide-token-0123456789";
const PLANETS = "pie chart of the largest planets from planets.xlsx";
/** Set to refresh the README's screenshot (docs/images/ide-planets.png) from the planets step. */
const README_SHOT = process.env.TEXTIDE_README_SCREENSHOT === "1";

describe.skipIf(browserSkipReason !== undefined)("acceptance in a real browser (offline planner)", () => {
  let session: IdeRun;
  let ws: Workspace;
  let server: WebProcess;
  let page: Page;

  beforeAll(async () => {
    session = await startIde({
      // The sample data the request needs, whatever else the workspace copy holds.
      prepare: (w) =>
        copyFile(path.join(REPO, "project_root/data/planets.xlsx"), path.join(w.project, "data/planets.xlsx")),
      // With a token, system_open_file from the MCP server must present it: the authenticated path is tested.
      env: { TEXTIDE_IDE_TOKEN: TOKEN },
      page: { viewport: { width: 1440, height: 900 }, colorScheme: "dark" },
    });
    ({ ws, server, page } = session);
  }, 60_000);

  afterAll(() => session?.close());

  it("charts the planets: the PNG is selected in the tree and decoded in the viewer, with tool cards in the chat", async () => {
    const ui = ide(page);
    await page.fill(css.chatInput, PLANETS);
    await page.press(css.chatInput, "Enter");

    const link = page.locator(css.outputLink, { hasText: /^generated_assets\/.+\.png$/ }).first();
    try {
      await link.waitFor({ timeout: 60_000 });
    } catch (err) {
      await screenshot(page, "acceptance-planets-fail");
      throw new Error(`no PNG output in the chat:\n${server.output()}`, { cause: err });
    }
    const png = (await link.textContent())!.trim();
    const onDisk = await readFile(path.join(ws.assets, png.slice("generated_assets/".length)));
    expect(onDisk.subarray(1, 4).toString("latin1")).toBe("PNG");

    await page.waitForSelector(css.selectedTreeRow(png), { timeout: 10_000 });
    await page.waitForSelector(css.activeTab(png), { timeout: 10_000 });
    await page.waitForFunction(imageLoaded(png), undefined, { timeout: 10_000 });
    expect(await page.evaluate(decodedImageWidth(png))).toBeGreaterThan(100);

    for (const tool of ["fs_search_files", "exec_run_js"]) {
      await page.waitForSelector(css.toolCard(tool), { timeout: 5_000 });
      await expect.poll(() => page.textContent(css.toolCardState(tool))).toMatch(/^ok/);
    }
    await page.waitForSelector(css.assistantMessage, { timeout: 5_000 });
    expect(await page.textContent(css.assistantMessage)).toContain("Jupiter");
    await ui.send.waitFor({ timeout: 10_000 });

    // Let the image settle before the picture that the README shows.
    await page.waitForTimeout(300);
    const shot = await screenshot(page, "acceptance-planets");
    if (README_SHOT) {
      await mkdir(path.join(REPO, "docs/images"), { recursive: true });
      await copyFile(shot, path.join(REPO, "docs/images/ide-planets.png"));
    }
    expect(session.pageErrors).toEqual([]);
  }, 60_000);

  it("a save over an external change raises the conflict dialog; Reload and Overwrite do what they say on disk", async () => {
    const ui = ide(page);
    const p = "notes/ideas.md";
    const file = path.join(ws.project, p);
    await page.click(css.treeRow("notes"));
    await page.click(css.treeRow(p));
    await page.click(css.viewToggle(p, "Source"));
    await page.waitForFunction(editorShows(p, "Things to ask the assistant"), undefined, { timeout: 15_000 });

    const editLocally = async (text: string): Promise<void> => {
      await page.click(css.panelEditorLines(p));
      await page.keyboard.press("Control+End");
      await page.keyboard.type(`\n${text}`);
      await expect.poll(() => page.textContent(css.saveStatus(p))).toContain("unsaved");
    };

    // Reload: the disk wins, the local edit is dropped.
    await editLocally("Local edit one.");
    await writeAtomic(file, "# External version A\n");
    await page.keyboard.press("Control+s");
    await ui.conflictDialog.waitFor({ timeout: 10_000 });
    await ui.reloadFromDisk(ui.conflictDialog).click();
    await ui.conflictDialog.waitFor({ state: "hidden", timeout: 5_000 });
    await page.waitForFunction(editorShows(p, "External version A"), undefined, { timeout: 10_000 });
    expect(await page.evaluate(editorShows(p, "Local edit one."))).toBe(false);
    expect(await readFile(file, "utf8")).toBe("# External version A\n");
    await expect.poll(() => page.textContent(css.saveStatus(p))).not.toContain("unsaved");

    // Overwrite: the editor wins over a second external change.
    await editLocally("Local edit two.");
    await writeAtomic(file, "# External version B\n");
    await page.keyboard.press("Control+s");
    await ui.conflictDialog.waitFor({ timeout: 10_000 });
    await screenshot(page, "acceptance-conflict");
    await ui.overwrite(ui.conflictDialog).click();
    await expect
      .poll(() => readFile(file, "utf8"), { timeout: 10_000 })
      .toBe("# External version A\n\nLocal edit two.");
    await page.waitForSelector(`${css.saveStatus(p)}[data-status="saved"]`, { timeout: 5_000 });
  });

  it("system_open_file from a separate MCP client opens and activates the file's tab", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_BIN, "--root", ws.project, "--assets", ws.assets, "--no-exec"],
      env: { TEXTIDE_IDE_URL: server.base, TEXTIDE_IDE_TOKEN: TOKEN, LOG_LEVEL: "warn" },
      stderr: "pipe",
    });
    const client = new Client({ name: "textide-acceptance", version: "1.0.0" });
    await client.connect(transport);
    try {
      const p = "notes/observing-log.md";
      const result = await client.callTool({ name: "system_open_file", arguments: { path: p, line: 3 } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ path: p, clients: 1 });
      await page.waitForSelector(css.activeTab(p), { timeout: 10_000 });
      expect(await page.isVisible(css.panel(p))).toBe(true);
      await page.waitForFunction(editorShows(p, "Observing log"), undefined, { timeout: 15_000 });
      await screenshot(page, "acceptance-mcp-open");
    } finally {
      await client.close();
    }
  });
});
