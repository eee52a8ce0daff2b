import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, type Workspace } from "./helpers.js";
import { connectMcp, NOT_BUILT, startProduction, type ProductionServer } from "./production-server.js";

const CHROMIUM = "/usr/bin/chromium";
const RESULTS = fileURLToPath(new URL("../test-results", import.meta.url));
const skipReason = !existsSync(CHROMIUM) ? `${CHROMIUM} is absent (apt-get install -y chromium)` : NOT_BUILT;
if (skipReason) console.warn(`[console.e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)("MCP call-log console in a real browser", () => {
  let ws: Workspace;
  let srv: ProductionServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ws = await makeWorkspace();
    srv = await startProduction(ws);
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
    await page.goto(srv.base);
    await page.waitForSelector(".conn.ok", { timeout: 15_000 });
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

    await mkdir(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, "console.png") });
    // The top-bar button closes it again.
    await page.click('button[title^="MCP call log"]');
    await expect.poll(() => page.locator('section[aria-label="Console"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
