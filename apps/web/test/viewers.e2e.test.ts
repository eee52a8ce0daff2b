import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeXlsx } from "./xlsx-fixture.js";
import { browserSkipReason, screenshot, startIde, type IdeRun, type WebProcess } from "./browser-harness.js";
import { sleep, type Workspace } from "./helpers.js";

if (browserSkipReason) console.warn(`[viewers.e2e] skipped: ${browserSkipReason}`);

const SPEC = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  description: "Launch attempts per year, read from a workspace CSV through /api/raw.",
  data: { url: "../data/launches-by-year.csv" },
  mark: { type: "bar", tooltip: true },
  encoding: {
    x: { field: "Year", type: "ordinal" },
    y: { field: "Orbital launch attempts", type: "quantitative" },
  },
};

const MARKDOWN = `# Viewer check heading

Some **bold** text and a [link to ideas](ideas.md).

<script>window.__pwned = "script";</script>
<img src="x" onerror="window.__pwned = 'img'">

| planet | moons |
| ------ | ----- |
| Mars   | 2     |

\`\`\`js
const x = 1;
\`\`\`

![solar system](../images/solar-system.png)
`;

describe.skipIf(browserSkipReason !== undefined)("viewers in a real browser", () => {
  let run: IdeRun;
  let ws: Workspace;
  let server: WebProcess;
  let page: Page;
  let pageErrors: string[];
  let requested: string[];

  beforeAll(async () => {
    run = await startIde({
      prepare: async (w) => {
        await mkdir(path.join(w.project, "charts"));
        await writeFile(path.join(w.project, "charts", "launches.vl.json"), JSON.stringify(SPEC, null, 2));
        await writeFile(path.join(w.project, "notes", "check.md"), MARKDOWN);
        await writeFile(path.join(w.project, "notes", "todo.txt"), "observe Jupiter\nlog the moons\n");
        const big = Array.from({ length: 100_000 }, (_, i) => `${i},star ${i},${(i * 7919) % 100_003}`);
        await writeFile(path.join(w.project, "data", "stars.csv"), `id,name,score\n${big.join("\n")}\n`);
        // A numeric cell written as <v>NaN</v> (B3), as some exporters do (issue 10, item 14).
        await writeFile(
          path.join(w.project, "data", "nan.xlsx"),
          makeXlsx([
            {
              name: "Planets",
              rows: [
                ["name", "mass"],
                ["Earth", 5.97],
                ["Venus", Number.NaN],
              ],
            },
          ]),
        );
      },
    });
    ({ ws, server, page, pageErrors, requested } = run);
  }, 60_000);

  afterAll(() => run?.close());

  const panel = (p: string): string => `.tab-panel[data-path="${p}"]`;
  const openFile = async (p: string): Promise<void> => {
    const res = await fetch(`${server.base}/api/open-file`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: p }),
    });
    expect(res.status).toBe(200);
    await page.waitForSelector(`.tab.active[data-path="${p}"]`, { timeout: 10_000 });
  };
  /** Text of every element matching `selector` (a string expression: this file has no DOM types). */
  const texts = (selector: string): Promise<string[]> =>
    page.evaluate<string[]>(
      `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent ?? "")`,
    );

  it("draws a Vega-Lite spec with data from a workspace CSV, and shows its source on demand", async () => {
    const p = "charts/launches.vl.json";
    await openFile(p);
    // One bar per year of the CSV: the data URL resolved through /api/raw.
    await page.waitForFunction(
      `document.querySelectorAll(${JSON.stringify(`${panel(p)} .vega-host svg .mark-rect path`)}).length >= 5`,
      undefined,
      { timeout: 20_000 },
    );
    expect(requested.some((u) => u.includes("/api/raw?path=data%2Flaunches-by-year.csv"))).toBe(true);
    // Export actions are there; the online editor and source/compiled views are not.
    await page.click(`${panel(p)} .vega-embed details > summary`);
    const actions = await texts(`${panel(p)} .vega-actions a`);
    expect(actions.join("|")).toMatch(/SVG/);
    expect(actions.join("|")).toMatch(/PNG/);
    expect(actions.join("|")).not.toMatch(/Editor|Source|Compiled/i);
    await screenshot(page, "viewers-vega");
    for (const [label, file] of [
      ["Save as PNG", "launches.png"],
      ["Save as SVG", "launches.svg"],
    ] as const) {
      if (!(await page.isVisible(`${panel(p)} .vega-actions`)))
        await page.click(`${panel(p)} .vega-embed details > summary`);
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: 10_000 }),
        page.click(`${panel(p)} .vega-actions a:has-text("${label}")`),
      ]);
      expect(download.suggestedFilename()).toBe(file);
      expect(download.url()).toMatch(/^(data|blob):/);
      const saved = await readFile(await download.path());
      expect(saved.subarray(0, 8).toString("latin1")).toMatch(file.endsWith(".png") ? /^\x89PNG/ : /^<svg/);
    }
    await page.click(`${panel(p)} .view-toggle button:has-text("Source")`);
    await page.waitForSelector(`${panel(p)} .monaco-editor .view-lines`, { timeout: 15_000 });
  }, 60_000);

  it("renders Markdown without running its scripts, and opens relative links in the IDE", async () => {
    const p = "notes/check.md";
    await openFile(p);
    await page.waitForSelector(`${panel(p)} .markdown-body h1:has-text("Viewer check heading")`, { timeout: 10_000 });
    await page.waitForSelector(`${panel(p)} .markdown-body table td:has-text("Mars")`);
    await page.waitForSelector(`${panel(p)} .markdown-body pre code`);
    expect(await page.$(`${panel(p)} .markdown-body script`)).toBeNull();
    expect(await page.$(`${panel(p)} .markdown-body img[onerror]`)).toBeNull();
    await page.waitForFunction(
      `(() => { const img = document.querySelector(${JSON.stringify(`${panel(p)} .markdown-body img`)}); return !!img && img.complete && img.naturalWidth > 0; })()`,
      undefined,
      { timeout: 10_000 },
    );
    await sleep(200);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    await page.click(`${panel(p)} .markdown-body a:has-text("link to ideas")`);
    await page.waitForSelector(`.tab.active[data-path="notes/ideas.md"]`, { timeout: 10_000 });
  });

  it("shows an XLSX sheet, switches sheets and sorts a column numerically", async () => {
    const p = "data/planets.xlsx";
    await openFile(p);
    const firstCells = (): Promise<string[]> => texts(`${panel(p)} tbody tr[data-row] td:nth-child(2)`);
    await page.waitForSelector(`${panel(p)} tbody tr[data-row]`, { timeout: 10_000 });
    expect(await firstCells()).toContain("Jupiter");
    await page.selectOption(`${panel(p)} select[aria-label="Sheet"]`, "Dwarf planets");
    await page.waitForFunction(
      `[...document.querySelectorAll(${JSON.stringify(`${panel(p)} thead th`)})].some((th) => th.textContent.startsWith("Dwarf planet"))`,
      undefined,
      { timeout: 10_000 },
    );
    const diameter = `${panel(p)} thead th:has-text("Diameter (km)")`;
    const diameters = async (): Promise<number[]> =>
      (await texts(`${panel(p)} tbody tr[data-row] td:nth-child(3)`)).map(Number);
    // The server sorts (a table view holds only its pages): the sorted rows arrive after the click.
    const sortedBy = async (dir: 1 | -1): Promise<number[]> => {
      await expect
        .poll(
          async () => {
            const seen = await diameters();
            return seen.length > 3 && seen.every((v, i) => i === 0 || dir * (v - seen[i - 1]!) >= 0);
          },
          { timeout: 20_000 },
        )
        .toBe(true);
      return diameters();
    };
    await page.click(diameter);
    const asc = await sortedBy(1);
    await page.click(diameter);
    const desc = await sortedBy(-1);
    expect(desc).toEqual([...asc].sort((a, b) => b - a));
    expect(await page.getAttribute(diameter, "aria-sort")).toBe("descending");
    await screenshot(page, "viewers-xlsx");
  });

  it("opens a workbook with a NaN numeric cell: the cell empty and a note naming it", async () => {
    const p = "data/nan.xlsx";
    await openFile(p);
    await page.waitForSelector(`${panel(p)} tbody tr[data-row]`, { timeout: 10_000 });
    expect(await texts(`${panel(p)} tbody tr[data-row] td:nth-child(2)`)).toEqual(["Earth", "Venus"]);
    const note = (await texts(`${panel(p)} .table-note`)).join(" ");
    expect(note).toContain("B3");
    expect(note).toContain("read as empty");
  });

  it("keeps a 100,000-row CSV virtualised: few rows in the DOM, the last row reachable, sortable", async () => {
    const p = "data/stars.csv";
    await openFile(p);
    await page.waitForSelector(`${panel(p)} tbody tr[data-row]`, { timeout: 15_000 });
    expect(await texts(`${panel(p)} .row-count`)).toEqual(["100,000 rows · 3 columns"]);
    const domRows = async (): Promise<number> => (await texts(`${panel(p)} tbody tr[data-row]`)).length;
    expect(await domRows()).toBeLessThan(120);
    await page.evaluate(
      `(() => { const s = document.querySelector(${JSON.stringify(`${panel(p)} .table-scroll`)}); s.scrollTop = s.scrollHeight; })()`,
    );
    await page.waitForSelector(`${panel(p)} tbody tr[data-row="99999"]`, { timeout: 5_000 });
    expect(await domRows()).toBeLessThan(120);
    await page.click(`${panel(p)} thead th:has-text("score")`);
    await page.click(`${panel(p)} thead th:has-text("score")`);
    await page.evaluate(`document.querySelector(${JSON.stringify(`${panel(p)} .table-scroll`)}).scrollTop = 0`);
    // The virtualiser renders the rows for the new scroll position on a later frame.
    await expect
      // The server sorts (the browser holds only the pages in view): allow it time on a busy machine.
      .poll(async () => (await texts(`${panel(p)} tbody tr[data-row] td:nth-child(4)`)).slice(0, 3).map(Number), {
        timeout: 30_000,
      })
      .toEqual([100_002, 100_001, 100_000]);
  }, 60_000);

  it("chat: Enter sends, tool cards complete, answer paths open files, the thread reloads from the list", async () => {
    await page.waitForSelector(".model-label.offline", { timeout: 10_000 });
    expect(await page.getAttribute(".model-label.offline", "title")).toContain("ANTHROPIC_API_KEY");
    await page.fill('textarea[aria-label="Message"]', "pie chart of the largest planets from planets.xlsx");
    await page.keyboard.press("Enter");
    await page.waitForSelector('.chat-panel .tool-card[data-tool="exec_run_js"][data-state="ok"]', { timeout: 30_000 });
    const link = '.chat-panel .msg.assistant .path-link[data-path="data/planets.xlsx"]';
    await page.waitForSelector(link, { timeout: 30_000 });
    await page.waitForSelector('.chat-panel button[title^="Send"]', { timeout: 10_000 });
    const states = await texts(".chat-panel .tool-card .tool-state");
    expect(states.every((t) => /^ok · \d+ ms$/.test(t))).toBe(true);
    await page.click(link);
    await page.waitForSelector('.tab.active[data-path="data/planets.xlsx"]', { timeout: 10_000 });
    await page.click('.chat-panel button:has-text("New thread")');
    expect(await page.$(".chat-panel .tool-card")).toBeNull();
    await page.click('.chat-panel button:has-text("Threads")');
    await page.click('.thread-list li button:has-text("pie chart of the largest planets")');
    await page.waitForSelector('.chat-panel .tool-card[data-tool="fs_search_files"][data-state="ok"]', {
      timeout: 10_000,
    });
    expect(await texts(".chat-panel .msg.user")).toEqual(["pie chart of the largest planets from planets.xlsx"]);
  }, 90_000);

  it("on a save conflict, Compare shows the diff and Keep mine overwrites the disk", async () => {
    const p = "notes/todo.txt";
    const file = path.join(ws.project, p);
    await openFile(p);
    const lines = `${panel(p)} .monaco-editor .view-lines`;
    await page.waitForSelector(lines, { timeout: 15_000 });
    await page.click(lines);
    await page.keyboard.press("Control+End");
    await page.keyboard.type("mine: edited in the browser");
    const disk = `${await readFile(file, "utf8")}theirs: changed on disk\n`;
    await writeFile(file, disk);
    await sleep(300);
    await page.keyboard.press("Control+s");
    await page.waitForSelector('dialog[open] h2:has-text("File changed on disk")', { timeout: 10_000 });
    await page.click('dialog[open] button:has-text("Compare")');
    await page.waitForSelector("dialog[open] .monaco-diff-editor", { timeout: 15_000 });
    await page.waitForFunction(
      `(() => { const t = document.querySelector("dialog[open] .monaco-diff-editor")?.textContent ?? ""; return t.includes("theirs") && t.includes("mine"); })()`,
      undefined,
      { timeout: 10_000 },
    );
    await screenshot(page, "viewers-conflict-diff");
    await page.click('dialog[open] button:has-text("Keep mine")');
    await expect.poll(() => readFile(file, "utf8"), { timeout: 10_000 }).toContain("mine: edited in the browser");
    expect(await readFile(file, "utf8")).not.toContain("theirs");
    expect(pageErrors).toEqual([]);
    // Nothing from a CDN or the online Vega editor.
    expect(requested.filter((u) => !u.startsWith(`${server.base}/`) && !/^(data|blob):/.test(u))).toEqual([]);
  }, 60_000);
});
