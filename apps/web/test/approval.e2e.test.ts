/**
 * Approvals (TEXTIDE_APPROVE): a run stops before each sandbox call until the user answers the card in
 * the chat. The offline planner makes the calls, so the whole loop is real except the model.
 */
import { readdir } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import { css, ide } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[approval.e2e] skipped: ${browserSkipReason}`);

const PLANETS = "pie chart of the largest planets from planets.xlsx";

describe.skipIf(browserSkipReason !== undefined)("approval cards in a real browser (offline planner)", () => {
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    run = await startIde({ env: { TEXTIDE_APPROVE: "exec_run_js" } });
    page = run.page;
  }, 60_000);

  afterAll(() => run?.close());

  const send = async (text: string): Promise<void> => {
    await page.fill(css.chatInput, text);
    await page.press(css.chatInput, "Enter");
  };

  it("Deny refuses the call: nothing runs, nothing is written", async () => {
    await send(PLANETS);
    const card = ide(page).approvalCard("exec_run_js").first();
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain("denied");
    await ide(page).send.waitFor({ timeout: 20_000 });
    expect(await readdir(run.ws.assets)).toEqual([]);
  }, 60_000);

  it("Approve on every card lets the run finish: the chart is written and opens", async () => {
    await page.getByRole("button", { name: "New thread" }).click();
    await send(PLANETS);
    // The planner inspects the workbook, then draws: one card per sandbox call, answered in turn.
    for (let answered = 0; answered < 2; answered++) {
      const card = ide(page).pendingApproval("exec_run_js");
      await card.waitFor({ timeout: 20_000 });
      await card.getByRole("button", { name: "Approve" }).click();
      await expect.poll(() => ide(page).approvalCard("exec_run_js").nth(answered).textContent()).toContain("approved");
    }
    const link = page.locator(css.outputLink, { hasText: /^generated_assets\/.+\.png$/ }).first();
    await link.waitFor({ timeout: 30_000 });
    const png = (await link.textContent())!.trim();
    await page.waitForSelector(css.activeTab(png), { timeout: 10_000 });
    await screenshot(page, "approval-approved");
    expect((await readdir(run.ws.assets)).some((f) => f.endsWith(".png"))).toBe(true);
  }, 90_000);
});
