/**
 * Issue 14, item 3: a running tool's card shows its MCP server's progress reports as a bar with the
 * report's message, and the bar goes when the call ends. A scripted OpenAI-compatible model (the agent
 * package's fake LLM server) runs exec_run_js code that waits for a file this test writes, so the card
 * is surely running while it is looked at.
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

if (browserSkipReason) console.warn(`[tool-progress.e2e] skipped: ${browserSkipReason}`);

const WAIT_FOR_RELEASE = `for (;;) {
  if ((await listFiles("generated_assets")).some((p) => p.endsWith("release.txt"))) return "released";
}`;
const card = '.chat-panel .tool-card[data-tool="exec_run_js"]';

describe.skipIf(browserSkipReason !== undefined)("tool progress on the running card", () => {
  let llm: FakeLlmServer;
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeLlmServer([
      { toolCalls: [{ name: "exec_run_js", args: { code: WAIT_FOR_RELEASE, timeoutMs: 30_000 } }] },
      { text: "Released." },
    ]);
    run = await startIde({
      env: {
        TEXTIDE_MODEL: "openai-compatible:scripted",
        OPENAI_BASE_URL: llm.openaiBaseUrl,
        OPENAI_API_KEY: "test-key-not-secret",
      },
    });
    page = run.page;
  }, 60_000);

  afterAll(async () => {
    if (run && run.pageErrors.length > 0) await screenshot(page, "tool-progress-fail");
    await run?.close();
    await llm?.close();
  });

  it("shows the server's stage on a bar while exec_run_js runs, and drops it when the call ends", async () => {
    await page.fill(css.chatInput, "wait for the release file");
    await page.press(css.chatInput, "Enter");
    const progress = page.locator(`${card}[data-state="running…"] .tool-progress`);
    await progress.getByText("running", { exact: true }).waitFor({ timeout: 60_000 });
    expect(await progress.locator("progress").count()).toBe(1);

    await writeFile(path.join(run.ws.assets, "release.txt"), "go");
    await page.waitForSelector(`${card}[data-state="ok"]`, { timeout: 60_000 });
    expect(await page.locator(`${card} .tool-progress`).count()).toBe(0);
    expect(run.pageErrors).toEqual([]);
  }, 120_000);
});
