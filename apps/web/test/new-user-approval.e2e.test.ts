/**
 * Approvals as a new user meets them (issue 10): a denied step reads as such (not as the instruction the
 * model gets), nothing says "Waiting for approval" once the card is answered, and a message typed while a
 * card waits cannot silently drop the paused request.
 */
import { readdir } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, screenshot, startIde, type IdeRun } from "./browser-harness.js";
import { css, ide } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[new-user-approval.e2e] skipped: ${browserSkipReason}`);

const PLANETS = "pie chart of the largest planets from planets.xlsx";

describe.skipIf(browserSkipReason !== undefined)("approvals as a new user meets them", () => {
  let run: IdeRun;
  let page: Page;

  beforeAll(async () => {
    run = await startIde({ env: { TEXTIDE_APPROVE: "exec_run_js" } });
    page = run.page;
  }, 60_000);

  afterAll(async () => {
    if (run && run.pageErrors.length > 0) await screenshot(page, "new-user-approval-fail");
    await run?.close();
  });

  const send = async (text: string): Promise<void> => {
    await page.fill(css.chatInput, text);
    await page.press(css.chatInput, "Enter");
  };
  const chatText = async (): Promise<string> => (await ide(page).chat.textContent()) ?? "";

  it("Deny says the step was denied, in words for the user, and leaves no 'Waiting for approval'", async () => {
    await send(PLANETS);
    const card = ide(page).pendingApproval("exec_run_js");
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => ide(page).approvalCard("exec_run_js").first().textContent()).toContain("denied");
    await expect.poll(chatText, { timeout: 20_000 }).toContain("You denied this step.");
    await ide(page).send.waitFor({ timeout: 20_000 });
    const text = await chatText();
    expect(text).not.toContain("Do not retry");
    expect(text).not.toContain("The user rejected");
    expect(text).not.toContain("Waiting for approval");
  }, 60_000);

  it("a message typed while a card waits is held back with the reason, and the paused request still runs", async () => {
    await page.getByRole("button", { name: "New thread" }).click();
    await send(PLANETS);
    await ide(page).pendingApproval("exec_run_js").waitFor({ timeout: 20_000 });

    await send("list the files in data");
    await expect.poll(() => ide(page).chat.getByRole("status").textContent()).toContain("Approve or deny");
    expect(await ide(page).send.isDisabled()).toBe(true);
    // Nothing was sent: the text stays in the box, the card still waits, no error appears.
    expect(await page.inputValue(css.chatInput)).toBe("list the files in data");
    expect(await page.locator(css.chatError).count()).toBe(0);

    for (let answered = 0; answered < 2; answered++) {
      const card = ide(page).pendingApproval("exec_run_js");
      await card.waitFor({ timeout: 20_000 });
      await card.getByRole("button", { name: "Approve" }).click();
    }
    const link = page.locator(css.outputLink, { hasText: /^generated_assets\/.+\.png$/ }).first();
    await link.waitFor({ timeout: 30_000 });
    expect((await readdir(run.ws.assets)).some((f) => f.endsWith(".png"))).toBe(true);
    expect(await chatText()).not.toContain("has no pending approval");
    expect(await page.locator(css.chatError).count()).toBe(0);

    // Once nothing waits, the held message can be sent.
    await ide(page).send.waitFor({ timeout: 20_000 });
    await expect.poll(() => ide(page).send.isDisabled()).toBe(false);
    expect(run.pageErrors).toEqual([]);
  }, 90_000);
});
