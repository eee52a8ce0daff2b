/**
 * The IDE as a new user meets it (issue 10): agent outputs that already exist, links in answers, messages
 * meant for users, and the editor's edge cases, in a real browser against the production build with the
 * offline planner.
 */
import { copyFile, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import type { Dialog, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserSkipReason,
  openIde,
  REPO,
  screenshot,
  startIde,
  writeAtomic,
  type IdePage,
  type IdeRun,
} from "./browser-harness.js";
import { css, decodedImageWidth, editorShows, ide, imageLoaded } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[new-user.e2e] skipped: ${browserSkipReason}`);

const PLANETS = "pie chart of the largest planets from planets.xlsx";

/** A valid RGB PNG of `width` × 8 pixels, all one colour. */
export function solidPng(width: number, rgb: [number, number, number] = [200, 60, 40]): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const height = 8;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill(css.chatInput, text);
  await page.press(css.chatInput, "Enter");
}

/** Waits until the run in `page` has ended (the Send button is back). */
async function runEnded(page: Page): Promise<void> {
  await ide(page).send.waitFor({ timeout: 60_000 });
}

async function closeTab(page: Page, p: string): Promise<void> {
  await page.click(`${css.tab(p)} .tab-close`);
  await page.waitForSelector(css.tab(p), { state: "detached", timeout: 5_000 });
}

describe.skipIf(browserSkipReason !== undefined)("the IDE as a new user meets it", () => {
  let run: IdeRun;
  let page: Page;
  let other: IdePage | undefined;

  beforeAll(async () => {
    run = await startIde({
      prepare: async (w) => {
        await copyFile(path.join(REPO, "project_root/data/planets.xlsx"), path.join(w.project, "data/planets.xlsx"));
        await writeFile(path.join(w.project, "notes/keep.txt"), "kept line\n");
        await writeFile(path.join(w.project, "notes/draft.txt"), "first draft\n");
        await writeFile(path.join(w.assets, ".gitkeep"), "");
        // Over the editor's 5 MiB: a table and a plain text file.
        // 400,000 rows: taller at 24 px a row than the viewer makes a table (8 M px), so its scroll is scaled.
        const rows = Array.from({ length: 400_000 }, (_, i) => `${i},star ${i},${"x".repeat(4)}`);
        await writeFile(path.join(w.project, "data/huge.csv"), `id,name,pad\n${rows.join("\n")}\n`);
        await writeFile(path.join(w.project, "notes/huge.log"), "log line\n".repeat(700_000));
      },
    });
    page = run.page;
  }, 60_000);

  afterAll(async () => {
    if (run && run.pageErrors.length > 0) await screenshot(page, "new-user-fail");
    await other?.page.context().close();
    await run?.close();
  });

  it("a chart whose file already exists opens again, in the window that asked and in every other", async () => {
    await send(page, PLANETS);
    const link = page.locator(css.outputLink, { hasText: /^generated_assets\/.+\.png$/ }).first();
    await link.waitFor({ timeout: 60_000 });
    const png = (await link.textContent())!.trim();
    await page.waitForSelector(css.activeTab(png), { timeout: 10_000 });
    await runEnded(page);
    await closeTab(page, png);

    // A second window opened after the file exists; the first asks again in a new thread.
    other = await openIde(run.browser, run.server.base);
    await other.page.waitForSelector(css.connected, { timeout: 15_000 });
    await page.getByRole("button", { name: "New thread" }).click();
    await send(page, PLANETS);
    await runEnded(page);
    expect(await page.locator(css.assistantMessage).last().textContent()).toContain(`Created ${png}`);

    for (const p of [page, other.page]) {
      await p.waitForSelector(css.activeTab(png), { timeout: 10_000 });
      await p.waitForSelector(css.selectedTreeRow(png), { timeout: 10_000 });
      await p.waitForFunction(imageLoaded(png), undefined, { timeout: 10_000 });
    }
    expect(run.pageErrors).toEqual([]);
  }, 120_000);

  it("a rewritten image shows its new pixels, in an open tab and in a tab opened again", async () => {
    const p = "generated_assets/pixels.png";
    const file = path.join(run.ws.assets, "pixels.png");
    await writeAtomic(file, solidPng(40));
    await page.waitForSelector(css.activeTab(p), { timeout: 10_000 });
    await expect.poll(() => page.evaluate(decodedImageWidth(p)), { timeout: 10_000 }).toBe(40);

    // Rewritten while its tab is open.
    await writeAtomic(file, solidPng(60));
    await expect.poll(() => page.evaluate(decodedImageWidth(p)), { timeout: 10_000 }).toBe(60);

    // Rewritten while its tab is closed, then opened again from the tree.
    await closeTab(page, p);
    await writeAtomic(file, solidPng(80));
    await page.click(css.treeRow(p));
    await page.waitForSelector(css.activeTab(p), { timeout: 10_000 });
    await expect.poll(() => page.evaluate(decodedImageWidth(p)), { timeout: 10_000 }).toBe(80);
  }, 60_000);

  it("answers are rendered Markdown: tables, emphasis and highlighted code, with path links that still open", async () => {
    await page.getByRole("button", { name: "New thread" }).click();
    await send(page, "show the first 5 rows of data/observatories.csv");
    await runEnded(page);
    const answer = page.locator(css.assistantMessage).last();
    await answer.locator("table tbody tr").first().waitFor({ timeout: 10_000 });
    expect(await answer.locator("table tbody tr").count()).toBe(5);
    expect(await answer.locator("strong").first().textContent()).toBe("data/observatories.csv");
    expect(await answer.textContent()).not.toContain("| ---");
    // The bold path is a link that opens the file.
    await answer.locator('a[data-path="data/observatories.csv"]').first().click();
    await page.waitForSelector(css.activeTab("data/observatories.csv"), { timeout: 10_000 });

    await send(page, "open scripts/orbit.js");
    await runEnded(page);
    const code = page.locator(css.assistantMessage).last().locator("pre code");
    await code.waitFor({ timeout: 10_000 });
    expect(await code.locator('[class^="hljs-"]').count()).toBeGreaterThan(0);
    expect(await page.locator(css.assistantMessage).last().textContent()).not.toContain("```");
  }, 60_000);

  it("file links in answers carry the full workspace path (listing and help text)", async () => {
    await page.getByRole("button", { name: "New thread" }).click();
    await send(page, "list the files in data");
    await runEnded(page);
    await page.locator(css.assistantMessage).last().getByRole("link", { name: "missions.json", exact: true }).click();
    await page.waitForSelector(css.activeTab("data/missions.json"), { timeout: 10_000 });
    await page.waitForSelector(css.selectedTreeRow("data/missions.json"), { timeout: 10_000 });

    await send(page, "sing me a song about the sea");
    await runEnded(page);
    const help = page.locator(css.assistantMessage).last();
    expect(await help.textContent()).toContain("offline planner");
    const links = await Promise.all((await help.locator("a[data-path]").all()).map((a) => a.getAttribute("data-path")));
    expect(links.length).toBeGreaterThan(0);
    for (const p of links) expect(p, `help text link ${p}`).toContain("/");
    await help.locator('a[data-path="data/observatories.csv"]').first().click();
    await page.waitForSelector(css.activeTab("data/observatories.csv"), { timeout: 10_000 });
    expect(run.pageErrors).toEqual([]);
  }, 60_000);

  it("errors from the explorer and the viewers read as messages for users, without advice for the model", async () => {
    // The file API's real not_found text, which it shares with the MCP tools.
    const advice = "Use fs_search_files or fs_list_directory to find the right path.";
    await page.route("**/api/fs/rename", (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "not_found", message: `notes/ideas.md does not exist. ${advice}` } }),
      }),
    );
    await expandFolder("notes");
    await page.click(css.treeRow("notes/ideas.md"));
    await page.keyboard.press("F2");
    await page.waitForSelector(".tree-input", { timeout: 5_000 });
    await page.keyboard.press("Control+A");
    await page.keyboard.type("renamed.md");
    await page.keyboard.press("Enter");
    const alert = page.locator('.explorer-message[role="alert"]');
    await alert.waitFor({ timeout: 5_000 });
    expect(await alert.textContent()).toContain("notes/ideas.md does not exist.");
    expect(await alert.textContent()).not.toContain("fs_");
    await page.unroute("**/api/fs/rename");

    // A file that vanished between the listing and the read says so in the viewer, and nothing about tools.
    const gone = "notes/observing-log.md";
    await page.route(`**/api/file?path=${encodeURIComponent(gone)}`, (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "not_found", message: `${gone} does not exist. ${advice}` } }),
      }),
    );
    await page.click(css.treeRow(gone));
    const note = page.locator(`${css.panel(gone)} .viewer-note.error`);
    await note.waitFor({ timeout: 10_000 });
    expect(await note.textContent()).toContain("does not exist");
    expect(await note.textContent()).not.toContain("fs_");
    await page.unroute(`**/api/file?path=${encodeURIComponent(gone)}`);
  }, 60_000);

  /** Expands a folder in the tree unless it is open already (earlier steps and restored tabs open some). */
  async function expandFolder(p: string): Promise<void> {
    if ((await page.getAttribute(css.treeRow(p), "aria-expanded")) !== "true") await page.click(css.treeRow(p));
  }

  /** Opens a text file from the tree and types a line at its end (the tab then shows unsaved edits). */
  async function editTextFile(p: string, first: string, line: string): Promise<void> {
    await page.click(css.treeRow(p));
    await page.waitForFunction(editorShows(p, first), undefined, { timeout: 15_000 });
    await page.click(css.panelEditorLines(p));
    await page.keyboard.press("Control+End");
    await page.keyboard.type(line);
    await expect.poll(() => page.textContent(css.saveStatus(p))).toContain("unsaved");
  }

  it("Reload from disk replaces the unsaved text, even when the disk text did not change", async () => {
    const p = "notes/keep.txt";
    await editTextFile(p, "kept line", "my unsaved edit");
    // Rewritten with the same text: a new etag, so the save conflicts, but the text on disk is as loaded.
    await writeAtomic(path.join(run.ws.project, p), "kept line\n");
    await page.keyboard.press("Control+s");
    const ui = ide(page);
    await ui.conflictDialog.waitFor({ timeout: 10_000 });
    await ui.reloadFromDisk(ui.conflictDialog).click();
    await ui.conflictDialog.waitFor({ state: "hidden", timeout: 5_000 });
    await expect.poll(() => page.evaluate(editorShows(p, "my unsaved edit")), { timeout: 10_000 }).toBe(false);
    expect(await page.evaluate(editorShows(p, "kept line"))).toBe(true);
    await expect.poll(() => page.textContent(css.saveStatus(p))).not.toContain("unsaved");
  }, 60_000);

  it("saving a file deleted on disk says it was deleted and offers to recreate it", async () => {
    const p = "notes/draft.txt";
    const file = path.join(run.ws.project, p);
    await editTextFile(p, "first draft", " and more");
    await rm(file);
    await page.keyboard.press("Control+s");
    const dialog = page.getByRole("dialog", { name: "File deleted on disk" });
    await dialog.waitFor({ timeout: 10_000 });
    expect(await dialog.textContent()).toContain("was deleted");
    expect(await dialog.textContent()).not.toContain("modified by something else");
    await dialog.getByRole("button", { name: "Recreate file" }).click();
    await expect.poll(() => readFile(file, "utf8").catch(() => ""), { timeout: 10_000 }).toBe("first draft\n and more");
    await page.waitForSelector(`${css.saveStatus(p)}[data-status="saved"]`, { timeout: 5_000 });
  }, 60_000);

  it("quick open counts one file as 1 file; a .gitkeep among the outputs has no 'gen' badge", async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+p");
    await page.waitForSelector(".qo-input", { timeout: 5_000 });
    await page.keyboard.type("observing-log.md");
    // Each keystroke narrows the list: the count of a partly typed name is not the answer yet.
    await expect.poll(() => page.textContent(".qo-foot"), { timeout: 10_000 }).toBe("1 file");
    await page.keyboard.press("Escape");

    const badge = (p: string): string => `${css.treeRow(p)} .tree-badge`;
    await page.waitForSelector(css.treeRow("generated_assets/.gitkeep"), { timeout: 10_000 });
    await page.waitForSelector(badge("generated_assets/pixels.png"), { timeout: 10_000 });
    expect(await page.locator(badge("generated_assets/.gitkeep")).count()).toBe(0);
  }, 30_000);

  it("unsaved edits make the browser ask before unloading; open tabs and the thread come back after a reload", async () => {
    const beforeUnloadBlocked = `(() => { const e = new Event("beforeunload", { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented; })()`;
    expect(await page.evaluate(beforeUnloadBlocked)).toBe(false);
    await editTextFile("notes/keep.txt", "kept line", "unsaved before reload");
    expect(await page.evaluate(beforeUnloadBlocked)).toBe(true);

    await page.getByRole("button", { name: "New thread" }).click();
    await send(page, "list the files in data");
    await runEnded(page);
    const answer = (await page.locator(css.assistantMessage).last().textContent())!;
    expect(answer).toContain("missions.json");
    await page.click(css.treeRow("data/observatories.csv"));
    await page.waitForSelector(css.activeTab("data/observatories.csv"), { timeout: 10_000 });
    const tabs = await Promise.all((await page.locator('[role="tab"]').all()).map((t) => t.getAttribute("data-path")));
    expect(tabs.length).toBeGreaterThan(2);

    // The edit is still unsaved: accept the browser's "leave the page?" question.
    const leave = (d: Dialog): void => void (d.type() === "beforeunload" ? d.accept() : d.dismiss());
    page.on("dialog", leave);
    await page.reload();
    page.off("dialog", leave);
    await page.waitForSelector(css.connected, { timeout: 15_000 });
    await page.waitForSelector(css.activeTab("data/observatories.csv"), { timeout: 10_000 });
    await page.waitForSelector(css.selectedTreeRow("data/observatories.csv"), { timeout: 10_000 });
    const after = await Promise.all((await page.locator('[role="tab"]').all()).map((t) => t.getAttribute("data-path")));
    expect(after).toEqual(tabs);
    await expect.poll(() => page.locator(css.assistantMessage).last().textContent(), { timeout: 10_000 }).toBe(answer);
    expect(await ide(page).chat.textContent()).toContain("list the files in data");
  }, 60_000);

  it("a CSV over 5 MiB opens in the table viewer, paged to its last row; another large file offers a download", async () => {
    await expandFolder("data");
    await page.click(css.treeRow("data/huge.csv"));
    await page.waitForSelector(css.panelTableRow("data/huge.csv"), { timeout: 20_000 });
    const panel = page.locator(css.panel("data/huge.csv"));
    expect(await panel.locator(".row-count").textContent()).toBe("400,000 rows · 3 columns");
    expect(await panel.locator("table thead").textContent()).toContain("name");
    // Every row is reachable: scrolled to the end, the last rows' pages load from the server.
    await page.evaluate(
      `(() => { const s = document.querySelector(${JSON.stringify(`${css.panel("data/huge.csv")} .table-scroll`)}); s.scrollTop = s.scrollHeight; })()`,
    );
    const last = panel.locator('tbody tr[data-row="399999"]');
    await last.waitFor({ timeout: 20_000 });
    expect(await last.locator("td").nth(2).textContent()).toBe("star 399999");
    expect(await last.isVisible()).toBe(true);
    // Halfway down the scrollbar is halfway through the rows.
    await page.evaluate(
      `(() => { const s = document.querySelector(${JSON.stringify(`${css.panel("data/huge.csv")} .table-scroll`)}); s.scrollTop = s.scrollHeight / 2; })()`,
    );
    // Polled as one reading of the rows in view: the rows at the bottom also start past 190,000, and on a
    // busy machine they are still there when the poll first looks.
    const rowsInView = async () => {
      const rows = panel.locator("tbody tr[data-row]");
      const at = async (row: typeof rows) => Number(await row.getAttribute("data-row"));
      return { first: await at(rows.first()), last: await at(rows.last()), count: await rows.count() };
    };
    await expect
      .poll(rowsInView, { timeout: 20_000 })
      .toSatisfy(({ first, last, count }) => first > 190_000 && last < 210_000 && count < 120);

    await expandFolder("notes");
    await page.click(css.treeRow("notes/huge.log"));
    const download = page.locator(css.panel("notes/huge.log")).getByRole("link", { name: "Download" });
    await download.waitFor({ timeout: 10_000 });
    expect(await download.getAttribute("href")).toBe("/api/raw?path=notes%2Fhuge.log&download=1");
  }, 60_000);
});
