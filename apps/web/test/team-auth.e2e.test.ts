/**
 * Sign-in in a real browser (issue 16): the production server with a users file redirects to the sign-in
 * page, a wrong secret is refused in words, the right one opens the IDE with the user shown, a request to
 * the offline planner runs, and signing out returns to the sign-in page.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../server/auth/secrets.js";
import { browserSkipReason, launchBrowser, screenshot, startWebProcess, type WebProcess } from "./browser-harness.js";
import { makeWorkspace, type Workspace } from "./helpers.js";
import { css, ide } from "./ide-selectors.js";

if (browserSkipReason) console.warn(`[team-auth.e2e] skipped: ${browserSkipReason}`);

const SECRET = "correct-horse-battery";

describe.skipIf(browserSkipReason !== undefined)("signing in to a team deployment in a real browser", () => {
  let ws: Workspace;
  let server: WebProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const usersFile = path.join(ws.dir, "users.json");
    await writeFile(usersFile, JSON.stringify({ users: [{ name: "ada", secret: await hashSecret(SECRET) }] }));
    server = await startWebProcess(ws, {
      TEXTIDE_USERS_FILE: usersFile,
      TEXTIDE_SESSION_SECRET: "e2e-session-secret-of-at-least-32-chars",
    });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 860 } })).newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await ws?.remove();
  });

  it("sends a signed-out visitor to the sign-in page and refuses a wrong secret in words", async () => {
    await page.goto(server.base);
    await page.getByRole("heading", { name: "Sign in to textide" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("User name").fill("ada");
    await page.getByLabel("Secret").fill("not-the-secret");
    await page.getByRole("button", { name: "Sign in" }).click();
    // Next.js adds its own (empty) alert region for route announcements.
    await expect.poll(() => page.getByRole("alert").filter({ hasText: /\S/ }).textContent()).toMatch(/do not match/);
    await screenshot(page, "team-sign-in-refused");
  }, 30_000);

  it("signs in, shows who is signed in, and answers a request", async () => {
    await page.getByLabel("Secret").fill(SECRET);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForSelector(css.connected, { timeout: 20_000 });
    await expect.poll(() => page.locator(".user-badge").textContent()).toContain("ada");
    await page.fill(css.chatInput, "pie chart of the largest planets from planets.xlsx");
    await page.press(css.chatInput, "Enter");
    await page.locator(css.outputLink).first().waitFor({ timeout: 60_000 });
    await ide(page).send.waitFor({ timeout: 60_000 });
    await screenshot(page, "team-signed-in");
  }, 90_000);

  it("signs out back to the sign-in page, and the IDE asks for sign-in again", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to textide" }).waitFor();
    await page.goto(server.base);
    await page.getByRole("heading", { name: "Sign in to textide" }).waitFor();
    const status = await page.evaluate("fetch('/api/threads').then((r) => r.status)");
    expect(status).toBe(401);
  }, 30_000);
});
