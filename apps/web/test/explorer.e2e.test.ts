import { existsSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { JSHandle, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import type { Workspace } from "./helpers.js";
import { css, editorShows } from "./ide-selectors.js";

const BIG = 20_000;

describe.skipIf(browserSkipReason !== undefined)("explorer in a real browser", () => {
  let run: IdeRun;
  let ws: Workspace;
  let page: Page;
  let pageErrors: string[];
  const dialogs: string[] = [];

  beforeAll(async () => {
    run = await startIde({
      prepare: async (w) => {
        const big = path.join(w.project, "big");
        await mkdir(big);
        for (let i = 0; i < BIG; i += 500) {
          await Promise.all(
            Array.from({ length: Math.min(500, BIG - i) }, (_, k) =>
              writeFile(path.join(big, `item-${String(i + k).padStart(5, "0")}.txt`), ""),
            ),
          );
        }
      },
    });
    ({ ws, page, pageErrors } = run);
    // Delete and overwrite ask with window.confirm: accept, and remember what was asked.
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
  }, 90_000);

  afterAll(async () => {
    if (run && pageErrors.length > 0) await screenshot(page, "explorer-fail");
    await run?.close();
  });

  const row = (p: string): string => `.file-tree [data-path="${p}"]`;
  const onDisk = (rel: string): string => path.join(ws.project, rel);

  /** The file opened in its editor (the tab is there and Monaco has rendered its lines). */
  async function editorReady(p: string): Promise<void> {
    await page.waitForSelector(`.tab-panel[data-path="${p}"] .monaco-editor .view-lines`, { timeout: 15_000 });
  }

  async function typeName(name: string): Promise<void> {
    await page.waitForSelector(".tree-input", { timeout: 5_000 });
    await page.keyboard.press("Control+A");
    await page.keyboard.type(name);
    await page.keyboard.press("Enter");
  }

  /** A DataTransfer holding one text file, built in the page (this file is type-checked without the DOM lib). */
  function dataTransfer(name: string, text: string): Promise<JSHandle> {
    return page.evaluateHandle(
      `(() => { const dt = new DataTransfer(); dt.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: "text/plain" })); return dt; })()`,
    );
  }

  async function drop(target: string, name: string, text: string): Promise<void> {
    const dt = await dataTransfer(name, text);
    await page.dispatchEvent(row(target), "dragover", { dataTransfer: dt });
    await page.dispatchEvent(row(target), "drop", { dataTransfer: dt });
  }

  it("creates a file and a folder with the header buttons", async () => {
    await page.click(row("data"));
    await page.waitForSelector(row("data/planets.xlsx"), { timeout: 10_000 });
    await page.click('button[aria-label="New File"]');
    await typeName("fresh.txt");
    await expect.poll(() => existsSync(onDisk("data/fresh.txt")), { timeout: 5_000 }).toBe(true);
    // A new file opens in a tab and is selected in the tree.
    await page.waitForSelector('.tab.active[data-path="data/fresh.txt"]', { timeout: 10_000 });
    await page.waitForSelector(`${row("data/fresh.txt")}.selected`, { timeout: 5_000 });
    await editorReady("data/fresh.txt");

    await page.click('button[aria-label="New Folder"]');
    await typeName("drafts");
    await expect.poll(async () => (await stat(onDisk("data/drafts")).catch(() => undefined))?.isDirectory()).toBe(true);
    await page.waitForSelector(row("data/drafts"), { timeout: 5_000 });
  });

  it("renames from the context menu and with F2; the open tab follows with its unsaved edits", async () => {
    await page.click(css.panelEditorLines("data/fresh.txt"));
    await page.keyboard.type("unsaved line");
    await expect.poll(() => page.textContent(css.saveStatus("data/fresh.txt"))).toContain("unsaved");
    await page.click(row("data/fresh.txt"), { button: "right" });
    await page.click('.context-menu [role="menuitem"]:has-text("Rename")');
    await typeName("renamed.txt");
    // A file moves as link + unlink (no replace of a racing file), so the two names can both exist for a moment.
    await expect
      .poll(() => [existsSync(onDisk("data/renamed.txt")), existsSync(onDisk("data/fresh.txt"))], { timeout: 5_000 })
      .toEqual([true, false]);
    await page.waitForSelector('.tab[data-path="data/renamed.txt"]', { timeout: 5_000 });
    await editorReady("data/renamed.txt");
    expect(await page.$('.tab[data-path="data/fresh.txt"]')).toBeNull();
    await page.waitForFunction(editorShows("data/renamed.txt", "unsaved line"), undefined, { timeout: 5_000 });
    expect(await page.textContent(css.saveStatus("data/renamed.txt"))).toContain("unsaved");
    await page.click(css.panelEditorLines("data/renamed.txt"));
    await page.keyboard.press("Control+s");
    await expect.poll(() => readFile(onDisk("data/renamed.txt"), "utf8"), { timeout: 5_000 }).toContain("unsaved line");

    await page.click(row("data/drafts"));
    await page.keyboard.press("F2");
    await typeName("drafts-2024");
    await page.waitForSelector(row("data/drafts-2024"), { timeout: 5_000 });
    expect(existsSync(onDisk("data/drafts"))).toBe(false);
  });

  it("deletes with the Delete key after a confirmation; the tab closes", async () => {
    await page.click(row("data/renamed.txt"));
    await page.keyboard.press("Delete");
    await expect.poll(() => existsSync(onDisk("data/renamed.txt")), { timeout: 5_000 }).toBe(false);
    expect(dialogs.at(-1)).toContain("Delete data/renamed.txt?");
    await page.waitForSelector(row("data/renamed.txt"), { state: "detached", timeout: 5_000 });
    expect(await page.$('.tab[data-path="data/renamed.txt"]')).toBeNull();
  });

  it("uploads a file dropped on a folder, asks before overwriting, refuses generated_assets", async () => {
    await drop("notes", "dropped.txt", "first upload");
    await expect
      .poll(() => readFile(onDisk("notes/dropped.txt"), "utf8").catch(() => ""), { timeout: 10_000 })
      .toBe("first upload");
    await page.waitForSelector('.upload-item[data-upload="notes/dropped.txt"][data-status="done"]', {
      timeout: 5_000,
    });
    await page.waitForSelector(row("notes/dropped.txt"), { timeout: 5_000 });

    // Dropped on a file: it goes into that file's folder; the 409 becomes a question.
    await drop("notes/ideas.md", "dropped.txt", "second upload");
    await expect.poll(() => readFile(onDisk("notes/dropped.txt"), "utf8"), { timeout: 10_000 }).toBe("second upload");
    expect(dialogs.at(-1)).toContain("notes/dropped.txt already exists");

    await drop("generated_assets", "nope.txt", "x");
    const alert = await page.waitForSelector('.explorer-message[role="alert"]', { timeout: 5_000 });
    expect(await alert.textContent()).toContain("Uploads go into the project");
    expect(existsSync(path.join(ws.assets, "nope.txt"))).toBe(false);
  });

  it("quick open: Ctrl+P, type, Enter opens the file", async () => {
    await page.keyboard.press("Control+P");
    await page.waitForSelector(".qo-input", { timeout: 5_000 });
    await page.keyboard.type("observ");
    await page.waitForSelector('.qo-item.active[data-path="data/observatories.csv"]', { timeout: 5_000 });
    await page.keyboard.press("Enter");
    await page.waitForSelector('.tab.active[data-path="data/observatories.csv"]', { timeout: 5_000 });
    expect(await page.$(".qo")).toBeNull();
    await page.keyboard.press("Control+P");
    await page.waitForSelector(".qo-input", { timeout: 5_000 });
    await page.keyboard.press("Escape");
    await page.waitForSelector(".qo", { state: "detached", timeout: 5_000 });
  });

  it(
    "opens a 20,000-file folder with only the visible rows in the DOM and reaches the last file",
    { timeout: 60_000 },
    async () => {
      await page.click('button[aria-label="Collapse all"]');
      await page.click(row("big"));
      await page.waitForSelector(row("big/item-00000.txt"), { timeout: 15_000 });
      const rendered = await page.$$eval(".file-tree [role=treeitem]", (els) => els.length);
      expect(rendered).toBeGreaterThan(10);
      expect(rendered).toBeLessThan(200);

      // Scrolling to the bottom renders the last rows...
      await page.evaluate(
        `(() => { const el = document.querySelector(".file-tree"); el.scrollTo({ top: el.scrollHeight }); })()`,
      );
      await page.waitForSelector(row("big/item-19999.txt"), { timeout: 5_000 });
      expect(await page.$(row("big/item-00000.txt"))).toBeNull();
      // ...and the keyboard moves the cursor across all of them and keeps it in view.
      await page.focus(".file-tree");
      await page.keyboard.press("End");
      await page.waitForSelector(`${row("README.md")}.cursor`, { timeout: 5_000 });
      await page.keyboard.press("Home");
      await page.waitForSelector(`${row("big")}.cursor`, { timeout: 5_000 });
      await page.keyboard.press("ArrowDown");
      await page.waitForSelector(`${row("big/item-00000.txt")}.cursor`, { timeout: 5_000 });
      expect(await page.$(row("big/item-19999.txt"))).toBeNull();
      expect(await page.$$eval(".file-tree [role=treeitem]", (els) => els.length)).toBeLessThan(200);
      await screenshot(page, "explorer-big");
      expect(pageErrors).toEqual([]);
    },
  );
});
