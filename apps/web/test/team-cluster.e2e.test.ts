/**
 * Issue 16 in a real browser: a chart generated through instance A opens in a window served by instance B.
 * Both production servers share one workspace, one thread store and one Redis; B runs without a watcher
 * (TEXTIDE_WATCH=off, as where the workspace is a network disk whose changes B's kernel never reports), so
 * the tab, the image and the tree row in B's window all come from A through Redis.
 */
import { copyFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AgentEvent } from "@textide/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, collectAgentEvents, waitUntil } from "./agent-helpers.js";
import {
  browserSkipReason,
  launchBrowser,
  openIde,
  REPO,
  screenshot,
  startWebProcess,
  type IdePage,
  type WebProcess,
} from "./browser-harness.js";
import { connectClient, makeWorkspace, type Workspace } from "./helpers.js";
import { redisSkipReason, startRedis, type RedisService } from "./helpers/redis.js";
import { css, imageLoaded } from "./ide-selectors.js";

const skip = browserSkipReason ?? redisSkipReason;
if (skip) console.warn(`[team-cluster.e2e] skipped: ${skip}`);

describe.skipIf(skip !== undefined)("a file generated through instance A opens in B's window (issue 16)", () => {
  let redis: RedisService;
  let ws: Workspace;
  let a: WebProcess;
  let b: WebProcess;
  let browser: Browser;
  let onB: IdePage;

  beforeAll(async () => {
    [redis, ws, browser] = await Promise.all([startRedis(), makeWorkspace(), launchBrowser()]);
    await copyFile(path.join(REPO, "project_root/data/planets.xlsx"), path.join(ws.project, "data/planets.xlsx"));
    [a, b] = await Promise.all([
      startWebProcess(ws, { REDIS_URL: redis.url, TEXTIDE_INSTANCE_ID: "web-a" }),
      startWebProcess(ws, { REDIS_URL: redis.url, TEXTIDE_INSTANCE_ID: "web-b", TEXTIDE_WATCH: "off" }),
    ]);
    onB = await openIde(browser, b.base);
    await onB.page.waitForSelector(css.connected, { timeout: 30_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.remove();
    await ws?.remove();
  });

  it("opens and shows the PNG of a chart request sent to A, and lists it in B's tree", async () => {
    const client = await connectClient(a.base);
    try {
      const events: AgentEvent[] = collectAgentEvents(client);
      const run = await call<{ runId: string }>(client, "agent/run", {
        text: "pie chart of the largest planets from planets.xlsx",
      });
      if (!run.ok) throw new Error(run.error.message);
      const png = await waitUntil(
        () => {
          for (const e of events) {
            if (e.type === "tool_end" && e.runId === run.data.runId) {
              const out = e.outputs.find((o) => o.endsWith(".png"));
              if (out) return out;
            }
          }
          return undefined;
        },
        60_000,
        "the chart's PNG from the run on A",
      );
      const { page } = onB;
      try {
        await page.waitForSelector(css.activeTab(png), { timeout: 20_000 });
        await page.waitForFunction(imageLoaded(png), undefined, { timeout: 20_000 });
        await page.waitForSelector(css.treeRow(png), { timeout: 20_000 });
      } catch (err) {
        await screenshot(page, "team-cluster-b-window");
        throw new Error(`B's window did not show ${png}:\nA:\n${a.output()}\nB:\n${b.output()}`, { cause: err });
      }
      expect(onB.pageErrors).toEqual([]);
    } finally {
      client.close();
    }
  });

  it("says when B cannot reach the other servers, and catches up on what changed meanwhile once it can", async () => {
    const { page } = onB;
    await redis.stop();
    await page.waitForSelector(css.connWarn, { timeout: 20_000 });
    // Written on A's side while B is cut off: B, with no watcher of its own, can only learn of it later.
    const name = "during-outage.md";
    await waitUntil(() => a.output().includes("unreachable") || undefined, 10_000, "A noticing Redis gone");
    await writeFile(path.join(ws.project, name), "# written while Redis was away\n");
    await redis.start();
    await page.waitForSelector(css.connected, { timeout: 20_000 });
    // The workspace's top folder is always listed: its re-read shows the new file.
    await page.waitForSelector(css.treeRow(name), { timeout: 20_000 }).catch(async (err: unknown) => {
      await screenshot(page, "team-cluster-b-after-outage");
      throw err;
    });
  });
});
