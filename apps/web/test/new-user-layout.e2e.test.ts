/**
 * Layout as a new user meets it (issue 10): a light OS theme paints light from the start, a 900×700 window
 * shows every explorer button and the whole chat placeholder, and the active tab stays in view however many
 * tabs are open.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import { css } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[new-user-layout.e2e] skipped: ${browserSkipReason}`);

const MANY = Array.from(
  { length: 16 },
  (_, i) => `notes/many/file-with-a-long-name-${String(i + 1).padStart(2, "0")}.txt`,
);

/** Records data-theme (and the body's background) at every change from the very start of the document. */
const RECORD_THEME = `
  window.__themes = [];
  const record = () => window.__themes.push(
    String(document.documentElement && document.documentElement.getAttribute("data-theme")) + "|" +
    (document.body ? getComputedStyle(document.body).backgroundColor : ""));
  new MutationObserver(record).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-theme"] });
  document.addEventListener("DOMContentLoaded", record);
`;

describe.skipIf(browserSkipReason !== undefined)("layout as a new user meets it", () => {
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    run = await startIde({
      prepare: async (w) => {
        await mkdir(path.join(w.project, "notes/many"));
        for (const p of MANY) await writeFile(path.join(w.project, p), `${p}\n`);
      },
    });
    // A window as a new user's: 900×700, light OS theme, nothing saved; recorded from the first byte.
    const context = await run.browser.newContext({ viewport: { width: 900, height: 700 }, colorScheme: "light" });
    page = await context.newPage();
    await page.addInitScript(RECORD_THEME);
    await page.goto(run.server.base);
    await page.waitForSelector(css.connected, { timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    if (page) await screenshot(page, "new-user-layout");
    await run?.close();
  });

  it("a light OS theme with no saved choice is light from the first paint", async () => {
    await page.getByRole("button", { name: "Toggle theme" }).waitFor({ timeout: 5_000 });
    const themes = await page.evaluate<string[]>("window.__themes");
    expect(themes.length).toBeGreaterThan(0);
    for (const t of themes) expect(t).toMatch(/^light\|/);
    expect(await page.getAttribute("html", "data-theme")).toBe("light");
  });

  it("at 900×700 every explorer button and the whole chat placeholder are visible", async () => {
    const explorer = (await page.getByRole("region", { name: "Explorer" }).boundingBox())!;
    for (const name of ["New File", "New Folder", "Refresh", "Collapse all"]) {
      const box = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
      expect(box.x + box.width, name).toBeLessThanOrEqual(explorer.x + explorer.width);
      const hit = await page.evaluate(
        `document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest("button")?.getAttribute("aria-label")`,
      );
      expect(hit, name).toBe(name);
    }
    const overflow = await page.evaluate(
      `[...document.querySelectorAll('[aria-label="Chat"] .chat-placeholder, [aria-label="Chat"] .chat-placeholder *')].filter((e) => e.scrollWidth > e.clientWidth + 1).length`,
    );
    expect(overflow).toBe(0);
    // The message box's placeholder, laid out at the box's width, fits its height.
    const fits = await page.evaluate(
      `(() => { const t = document.querySelector(${JSON.stringify(css.chatInput)}); const c = document.createElement("div"); const s = getComputedStyle(t); c.style.cssText = "position:absolute;visibility:hidden;white-space:pre-wrap;overflow-wrap:break-word;width:" + t.clientWidth + "px;font:" + s.font + ";padding:" + s.padding + ";box-sizing:border-box"; c.textContent = t.placeholder; document.body.append(c); const ok = c.offsetHeight <= t.clientHeight; c.remove(); return ok; })()`,
    );
    expect(fits).toBe(true);
  });

  it("the active tab is scrolled into view when many tabs are open", async () => {
    const tabInView = async (p: string): Promise<boolean> => {
      const list = (await page.locator('[role="tablist"]').boundingBox())!;
      const tab = (await page.locator(css.tab(p)).boundingBox())!;
      return tab.x >= list.x - 1 && tab.x + tab.width <= list.x + list.width + 1;
    };
    await page.click(css.treeRow("notes"));
    await page.click(css.treeRow("notes/many"));
    for (const p of MANY) {
      await page.click(css.treeRow(p));
      await page.waitForSelector(css.activeTab(p), { timeout: 10_000 });
    }
    await expect.poll(() => tabInView(MANY[MANY.length - 1]!)).toBe(true);
    expect(await tabInView(MANY[0]!)).toBe(false);
    await page.click(css.treeRow(MANY[0]!));
    await page.waitForSelector(css.activeTab(MANY[0]!), { timeout: 10_000 });
    await expect.poll(() => tabInView(MANY[0]!)).toBe(true);
  }, 60_000);
});
