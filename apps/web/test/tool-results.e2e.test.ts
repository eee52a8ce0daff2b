/**
 * Issue 10, item 2: a tool's result in its chat card is rendered like an answer — Markdown tables, code
 * highlighted, workspace paths as links that open the file — and a long one is bounded with a note. A
 * scripted OpenAI-compatible model (the agent package's fake LLM server) makes the calls, so the
 * results are known.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import { css } from "./ide-selectors.js";

type FakeTurn = { text: string } | { toolCalls: { name: string; args: Record<string, unknown> }[]; text?: string };
interface FakeLlmServer {
  openaiBaseUrl: string;
  close(): Promise<void>;
}
// Loaded at run time: it lives outside this app's rootDir (see cancel.e2e.test.ts).
const FAKE_LLM = new URL("../../../packages/agent/test/fake-llm-server.ts", import.meta.url).href;
const { startFakeLlmServer } = (await import(FAKE_LLM)) as {
  startFakeLlmServer: (script: FakeTurn[]) => Promise<FakeLlmServer>;
};

if (browserSkipReason) console.warn(`[tool-results.e2e] skipped: ${browserSkipReason}`);

const REPORT = [
  "# Moons",
  "",
  "| planet | moons |",
  "| ------ | ----- |",
  "| Earth  | 1     |",
  "| Mars   | 2     |",
  "",
  "Counts from data/planets.xlsx.",
  "",
  "```js",
  "const total = 1 + 2;",
  "```",
].join("\n");

const card = (tool: string) => `.chat-panel .tool-card[data-tool="${tool}"]`;

describe.skipIf(browserSkipReason !== undefined)("tool results in the chat render as Markdown", () => {
  let llm: FakeLlmServer;
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeLlmServer([
      {
        toolCalls: [
          { name: "fs_read_file", args: { path: "notes/report.md" } },
          { name: "fs_read_file", args: { path: "notes/long.txt" } },
          { name: "exec_run_js", args: { code: "return { planets: ['Earth', 'Mars'], note: 'n'.repeat(70) };" } },
          { name: "sql_query", args: { sql: "SELECT count(*) AS n FROM 'data/observatories.csv'" } },
        ],
      },
      { text: "Read both notes." },
    ]);
    run = await startIde({
      env: {
        TEXTIDE_MODEL: "openai-compatible:scripted",
        OPENAI_BASE_URL: llm.openaiBaseUrl,
        OPENAI_API_KEY: "test-key-not-secret",
      },
      prepare: async (w) => {
        await writeFile(path.join(w.project, "notes/report.md"), REPORT);
        const lines = Array.from({ length: 600 }, (_, i) => `log line ${i}: ${"·".repeat(20)}`);
        await writeFile(path.join(w.project, "notes/long.txt"), lines.join("\n"));
      },
    });
    page = run.page;
  }, 60_000);

  afterAll(async () => {
    if (run && run.pageErrors.length > 0) await screenshot(page, "tool-results-fail");
    await run?.close();
    await llm?.close();
  });

  it("shows a Markdown file's table, highlighted code and a path link; JSON as highlighted code", async () => {
    await page.fill(css.chatInput, "read the notes");
    await page.press(css.chatInput, "Enter");
    await page.waitForSelector(`${card("exec_run_js")}[data-state="ok"]`, { timeout: 30_000 });
    const report = page.locator(card("fs_read_file")).first();
    await report.locator("summary").click();
    const result = report.locator(".tool-result");
    await result.locator("table").waitFor({ timeout: 10_000 });
    expect(await result.locator("table tbody tr").allTextContents()).toEqual(["Earth1", "Mars2"]);
    expect(await result.textContent()).not.toContain("| ------");
    expect(await result.locator("h1").textContent()).toBe("Moons");
    expect(await result.locator("pre code .hljs-keyword").first().textContent()).toBe("const");

    const exec = page.locator(card("exec_run_js"));
    await exec.locator("summary").click();
    expect(await exec.locator(".tool-result pre code.language-json .hljs-attr").first().textContent()).toBe(
      '"planets"',
    );

    // The call's SQL reads as SQL (highlighted), not as a JSON-escaped string.
    const sql = page.locator(card("sql_query"));
    await page.waitForSelector(`${card("sql_query")}[data-state="ok"]`, { timeout: 30_000 });
    await sql.locator("summary").click();
    const statement = sql.locator(".tool-code pre code.language-sql");
    expect(await statement.textContent()).toContain("SELECT count(*) AS n FROM 'data/observatories.csv'");
    expect(await statement.locator(".hljs-keyword").first().textContent()).toBe("SELECT");

    await result.locator('.path-link[data-path="data/planets.xlsx"]').click();
    await page.waitForSelector(css.activeTab("data/planets.xlsx"), { timeout: 10_000 });
    await screenshot(page, "tool-results");
  }, 60_000);

  it("bounds a long result: a scrolling box and a note of what is left out", async () => {
    const long = page.locator(card("fs_read_file")).nth(1);
    await long.locator("summary").click();
    const result = long.locator(".tool-result");
    await result.waitFor({ timeout: 10_000 });
    expect(await result.textContent()).toMatch(/… [\d,]+ more characters not shown here\./);
    const box = await page.evaluate(
      `(() => { const el = document.querySelectorAll(${JSON.stringify(`${card("fs_read_file")} .tool-result`)})[1]; return { client: el.clientHeight, scroll: el.scrollHeight }; })()`,
    );
    const { client, scroll } = box as { client: number; scroll: number };
    expect(client).toBeLessThanOrEqual(330);
    expect(scroll).toBeGreaterThan(client);
  });
});
