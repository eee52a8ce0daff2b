// team: the team deployment (issue 16) under 100 chat clients at once, through nginx to one instance and
// to two instances of the production web server sharing one workspace, one thread store and one Redis.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { get } from "node:http";
import os from "node:os";
import path from "node:path";
import { p50, p99 } from "../lib/stats.mjs";
import { missingService, startNginx, startRedis } from "../lib/team-services.mjs";
import { CHART, chatRequest, chatRounds, connectSocket } from "../lib/chat-client.mjs";
import { now } from "../lib/timing.mjs";
import { copyWorkspace, startWebServer } from "../lib/web-server.mjs";

export const name = "team";
export const description =
  "The team deployment: production web servers (`apps/web/dist/server/index.js`, offline planner) on one temp " +
  "copy of `project_root`, one shared thread store (SQLite file in one data dir) and one Redis (`REDIS_URL`), " +
  "behind nginx configured from `apps/web/deploy/nginx.conf.template`. The same run measures nginx → 1 " +
  "instance and nginx → 2 instances: chat clients over socket.io (websocket) through nginx, each from its own " +
  "loopback address (127.0.0.x; nginx is sticky by client address, so the clients spread over the instances), " +
  "all sending “pie chart of the largest planets from planets.xlsx” at once, timed from the emit to the run's " +
  "`final` on the client's socket.";

const FULL = { clients: 100, rounds: 2 };
const QUICK = { clients: 20, rounds: 1 };
const RUN_TIMEOUT_MS = 180_000;

export async function run(ctx) {
  const missing = missingService();
  if (missing) throw new Error(`team suite needs Redis and nginx: ${missing}`);
  const n = ctx.quick ? QUICK : FULL;
  const rows = [];
  for (const instances of [1, 2]) {
    const r = await measure(ctx, instances, n);
    const total = n.clients * n.rounds;
    rows.push(
      {
        metric: `nginx → ${instances} instance${instances > 1 ? "s" : ""}: chat requests completed (${n.clients} clients × ${n.rounds} rounds)`,
        textide: `${r.completed} / ${total}`,
        target: `${total} / ${total} (none lost)`,
        pass: r.completed === total,
      },
      { metric: "  completions per second (completed ÷ wall time of the rounds)", textide: r.rate, unit: "requests/s" },
      { metric: "  latency emit → final, p50", textide: p50(r.samples), unit: "ms" },
      { metric: "  p99", textide: p99(r.samples), unit: "ms" },
    );
    ctx.note(
      `nginx → ${instances}: clients per instance ${JSON.stringify(r.spread)}; per round (p50 / max) ` +
        `${r.perRound.map((x) => `${fmtMs(x.p50)} / ${fmtMs(x.max)}`).join("; ")}; 1-minute load average ` +
        `${r.load.before.toFixed(2)} before the rounds, ${r.load.after.toFixed(2)} after` +
        (r.firstFailure ? `; first failure: ${r.firstFailure}` : "") +
        ".",
    );
  }
  ctx.note(
    `Each request counts as completed only with stopReason "done", ${CHART} among its outputs and an answer ` +
      `naming Jupiter; anything else, or no final within ${RUN_TIMEOUT_MS / 1000} s, is lost. One uncounted ` +
      `request per instance first (its bundled MCP server's spawn and first runner). Both instances run on this ` +
      `one ${os.availableParallelism()}-core machine, so a second instance adds processes, not cores: the two ` +
      `set-ups compare what the fan-out costs and whether anything is lost, not how a second host scales. The ` +
      `machine was shared with other work during the run (busy), which the load averages show.`,
  );
  return rows;
}

const fmtMs = (ms) => (Number.isFinite(ms) ? `${Math.round(ms).toLocaleString("en-US")} ms` : "n/a");

async function measure(ctx, count, n) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "textide-bench-team-"));
  const servers = [];
  let redis;
  let nginx;
  const sockets = [];
  try {
    const { projectRoot, generatedAssets, dataDir } = await copyWorkspace(ctx.repoRoot, tmp);
    redis = await startRedis();
    const token = randomBytes(24).toString("base64url");
    for (let i = 0; i < count; i++) {
      servers.push(
        await startWebServer(ctx.repoRoot, {
          projectRoot,
          generatedAssets,
          dataDir,
          env: { REDIS_URL: redis.url, TEXTIDE_INSTANCE_ID: `web-${i}`, MCP_HTTP_TOKEN: token },
        }),
      );
    }
    const mcpUrls = await Promise.all(servers.map((s) => mcpUrlOf(s)));
    nginx = await startNginx(
      ctx.repoRoot,
      servers.map((s, i) => ({ id: `web-${i}`, web: new URL(s.base).host, mcp: new URL(mcpUrls[i]).host })),
    );
    ctx.log(`${count} instance(s) behind nginx at ${nginx.url}`);
    const addresses = Array.from({ length: n.clients }, (_, i) => `127.0.0.${(i % 250) + 2}`);
    for (const a of addresses) sockets.push(await connectSocket(nginx.url, a));
    const spread = await clientsPerInstance(nginx.url, addresses);
    // One uncounted request per instance, straight to it.
    for (const s of servers) {
      const direct = await connectSocket(s.base, "127.0.0.1");
      await chatRequest(direct, RUN_TIMEOUT_MS).finally(() => direct.close());
    }
    const load = { before: os.loadavg()[0], after: NaN };
    const { samples, perRound, completed, firstFailure, wallMs } = await chatRounds(
      sockets,
      n.rounds,
      RUN_TIMEOUT_MS,
      (round, ok) =>
        ctx.log(`${count} instance(s), round ${round + 1}: ${ok.length}/${sockets.length}, p50 ${fmtMs(p50(ok))}`),
    );
    load.after = os.loadavg()[0];
    return { samples, perRound, completed, firstFailure, load, spread, rate: completed / (wallMs / 1000) };
  } finally {
    for (const s of sockets) s.close();
    await nginx?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

async function mcpUrlOf(server) {
  const t0 = now();
  for (;;) {
    const m = /\(Streamable HTTP\) for external clients: (http:\/\/\S+)/.exec(server.output());
    if (m) return m[1];
    if (now() - t0 > 30_000) throw new Error(`no MCP endpoint in the server output:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * How many clients nginx sends to each instance: /api/health through nginx from each client's address names
 * the instance that answered (nginx hashes the client address, the same for the socket and this request).
 */
async function clientsPerInstance(proxyUrl, addresses) {
  const spread = {};
  for (const localAddress of addresses) {
    const body = await new Promise((resolve, reject) => {
      get(`${proxyUrl}/api/health`, { localAddress }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve(JSON.parse(text)));
      }).on("error", reject);
    });
    spread[body.instance] = (spread[body.instance] ?? 0) + 1;
  }
  return spread;
}
