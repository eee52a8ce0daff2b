import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserSkipReason,
  connectMcp,
  launchBrowser,
  openIde,
  screenshot,
  startMcpWebProcess,
  type McpWebProcess,
} from "./browser-harness.js";
import { makeWorkspace, type Workspace } from "./helpers.js";
import { css } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[console.e2e] skipped: ${browserSkipReason}`);

describe.skipIf(browserSkipReason !== undefined)("MCP call-log console in a real browser", () => {
  let ws: Workspace;
  let srv: McpWebProcess;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    ws = await makeWorkspace();
    srv = await startMcpWebProcess(ws);
    browser = await launchBrowser();
    ({ page, pageErrors } = await openIde(browser, srv.base));
    await page.waitForSelector(css.connected, { timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await ws?.remove();
  });

  const rows = 'section[aria-label="Console"] tbody tr';

  it("opens with Ctrl+` and shows external MCP calls live, errors highlighted; filters by status and text", async () => {
    // A call made before the console is open is loaded from /api/mcp-calls when it opens.
    const client = await connectMcp(srv.mcpUrl, srv.token);
    try {
      await client.callTool({ name: "fs_list_directory", arguments: { path: "data" } });
      await page.keyboard.press("Control+Backquote");
      await page.waitForSelector(rows, { timeout: 10_000 });
      expect(await page.locator(rows).count()).toBe(1);

      await client.callTool({ name: "fs_read_file", arguments: { path: "README.md" } });
      await client.callTool({ name: "fs_read_file", arguments: { path: "../secret.txt" } });
      await expect.poll(() => page.locator(rows).count(), { timeout: 10_000 }).toBe(3);
    } finally {
      await client.close();
    }
    const cells = await page.locator(`${rows} td`).allTextContents();
    expect(cells.join(" ")).toContain("fs_list_directory");
    const last = page.locator(rows).last();
    expect(await last.getAttribute("data-status")).toBe("outside_root");
    expect(await last.textContent()).toContain("external");

    await page.selectOption('section[aria-label="Console"] select', "errors");
    await expect.poll(() => page.locator(rows).count()).toBe(1);
    await page.selectOption('section[aria-label="Console"] select', "all");
    await page.fill('section[aria-label="Console"] input[type="search"]', "readme");
    await expect.poll(() => page.locator(rows).count()).toBe(1);
    await page.fill('section[aria-label="Console"] input[type="search"]', "");

    await screenshot(page, "console");
    // The top-bar button closes it again.
    await page.click('button[title^="MCP call log"]');
    await expect.poll(() => page.locator('section[aria-label="Console"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
