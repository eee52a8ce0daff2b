/**
 * Stop in the chat cancels a running request. The offline planner answers too fast to catch, so the
 * production server is pointed (by env, as a user would configure an OpenAI-compatible endpoint) at a
 * scripted OpenAI-compatible server in this process that asks for a sandbox call that never ends.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import { css, ide } from "./ide-selectors.js";

// The agent package's fake LLM server, loaded at run time: it lives outside this app's rootDir, so a
// static import would pull it into apps/web's type check.
type FakeTurn = { text: string } | { toolCalls: { name: string; args: Record<string, unknown> }[]; text?: string };
interface FakeLlmServer {
  openaiBaseUrl: string;
  requests: { endpoint: string }[];
  close(): Promise<void>;
}
const FAKE_LLM = new URL("../../../packages/agent/test/fake-llm-server.ts", import.meta.url).href;
const { startFakeLlmServer } = (await import(FAKE_LLM)) as {
  startFakeLlmServer: (script: FakeTurn[]) => Promise<FakeLlmServer>;
};

if (browserSkipReason) console.warn(`[cancel.e2e] skipped: ${browserSkipReason}`);

/** Far beyond the test's patience: if the run ends, it is the Stop that ended it. */
const SPIN_TIMEOUT_MS = 30_000;

describe.skipIf(browserSkipReason !== undefined)("Stop cancels a running request (scripted model)", () => {
  let llm: FakeLlmServer;
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeLlmServer([
      { toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: SPIN_TIMEOUT_MS } }] },
      { toolCalls: [{ name: "exec_run_js", args: { code: "return 6 * 7;" } }] },
      { text: "The sandbox answered 42." },
      { toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: SPIN_TIMEOUT_MS } }] },
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
    await run?.close();
    await llm?.close();
  });

  it("ends the run as cancelled, removes the Stop button, and the next prompt works", async () => {
    const ui = ide(page);
    await page.fill(css.chatInput, "spin forever in the sandbox");
    await page.press(css.chatInput, "Enter");
    await page.waitForSelector(css.toolCard("exec_run_js"), { timeout: 20_000 });
    expect(await page.textContent(css.toolCardState("exec_run_js"))).toMatch(/running/);
    await ui.stop.waitFor({ timeout: 5_000 });
    // Long enough for the sandbox to be inside the loop, not still starting.
    await page.waitForTimeout(1_000);

    const stopped = Date.now();
    await ui.stop.click();
    await page.waitForSelector(css.chatNote, { timeout: 10_000 });
    expect(await page.textContent(css.chatNote)).toContain("Stopped");
    // One message says so, not two ("Cancelled." from the agent and "Stopped." from the chat).
    expect(await ide(page).chat.textContent()).not.toContain("Cancelled.");
    await ui.stop.waitFor({ state: "detached", timeout: 5_000 });
    expect(Date.now() - stopped).toBeLessThan(SPIN_TIMEOUT_MS / 3);
    // The interrupted call's card says so instead of spinning forever.
    await expect.poll(() => page.textContent(css.toolCardState("exec_run_js"))).toMatch(/^cancelled/);
    await screenshot(page, "cancel-stopped");

    await page.fill(css.chatInput, "what is 6 times 7 in the sandbox?");
    await page.press(css.chatInput, "Enter");
    const answer = page.locator(css.assistantMessage, { hasText: "The sandbox answered 42." });
    try {
      await answer.waitFor({ timeout: 20_000 });
    } catch (err) {
      await screenshot(page, "cancel-fail");
      throw new Error(`no answer after the stop:\n${run.server.output()}`, { cause: err });
    }
    const states = await page.locator(css.toolCardState("exec_run_js")).allTextContents();
    expect(states).toHaveLength(2);
    expect(states[0]).toMatch(/^cancelled/);
    expect(states[1]).toMatch(/^ok/);
    await ui.send.waitFor({ timeout: 5_000 });
    expect(llm.requests.map((r) => r.endpoint)).toEqual(["openai.chat", "openai.chat", "openai.chat"]);
    await screenshot(page, "cancel-after");
  });

  it("Ctrl+. stops a running request from anywhere in the page", async () => {
    const ui = ide(page);
    await page.fill(css.chatInput, "spin again");
    await page.press(css.chatInput, "Enter");
    await ui.stop.waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator(css.toolCardState("exec_run_js")).count(), { timeout: 20_000 }).toBe(3);
    await page.waitForTimeout(1_000);
    // Away from the chat: the shortcut is global.
    await page.click('[role="tree"]');
    const stopped = Date.now();
    await page.keyboard.press("Control+.");
    await ui.stop.waitFor({ state: "detached", timeout: 10_000 });
    expect(Date.now() - stopped).toBeLessThan(SPIN_TIMEOUT_MS / 3);
    await expect.poll(() => page.locator(css.toolCardState("exec_run_js")).last().textContent()).toMatch(/^cancelled/);
  });
});
