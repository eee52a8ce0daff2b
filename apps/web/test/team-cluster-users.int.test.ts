/**
 * Issue 16: Stop across instances is the clicking user's. Two web servers in this process (each with its own
 * agent runtime and bundled MCP server) share one thread store and one Redis and require sign-in; ada's run
 * on A is stopped from ada's window on B, and bob's Stop from B is refused like any other way into ada's
 * thread; a message to the running thread through B is refused until the run ends. A scripted model keeps the run busy in the sandbox until it is stopped.
 */
import { writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ROOT, type AgentEvent } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebServer, type WebServer } from "../server/app.js";
import { createWebAuditLog } from "../server/auth/audit.js";
import { teamAuth } from "../server/auth/from-config.js";
import { hashSecret } from "../server/auth/secrets.js";
import { SESSION_COOKIE, signSession } from "../server/auth/session.js";
import { startCluster, type Cluster } from "../server/cluster/cluster.js";
import { loadConfig } from "../server/config.js";
import { silentLogger } from "../server/log.js";
import { createAgentRuntime, type AgentRuntime } from "../server/runtime/agent-runtime.js";
import { call, collectAgentEvents, makeDataDir, MCP_SERVER_BIN, routedModel, waitUntil } from "./agent-helpers.js";
import { connectClient, makeWorkspace, type Workspace } from "./helpers.js";
import { redisSkipReason, startRedis, type RedisService } from "./helpers/redis.js";

if (redisSkipReason) console.warn(`[team-cluster-users] skipped: ${redisSkipReason}`);

const SECRET = "a-session-secret-of-at-least-32-characters";
const SPIN = [{ toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: 30_000 } }] }];

interface Instance {
  app: WebServer;
  runtime: AgentRuntime;
  cluster: Cluster;
  base: string;
}

describe.skipIf(redisSkipReason !== undefined)("Stop across instances with signed-in users", () => {
  let ws: Workspace;
  let data: { dir: string; remove(): Promise<void> };
  let redis: RedisService;
  const instances: Instance[] = [];
  const sockets: Socket[] = [];

  async function startInstance(id: string, usersFile: string): Promise<Instance> {
    const config = loadConfig(
      {
        HOST: "127.0.0.1",
        TEXTIDE_DATA_DIR: data.dir,
        TEXTIDE_USERS_FILE: usersFile,
        TEXTIDE_SESSION_SECRET: SECRET,
      },
      ws.dir,
    );
    const audit = createWebAuditLog(config.dataDir, silentLogger);
    const team = teamAuth(config.team, audit);
    if (!team) throw new Error("expected sign-in to be required");
    const runtime = createAgentRuntime({
      projectRoot: ws.project,
      generatedAssets: ws.assets,
      dataDir: data.dir,
      mcpServerBin: MCP_SERVER_BIN,
      instanceId: id,
      model: { chat: await routedModel({ spin: SPIN }), info: { id: "scripted", label: "Scripted", offline: true } },
    });
    const cluster = startCluster({ url: redis.url, instanceId: id, log: silentLogger });
    const app = createWebServer({
      config: { host: "127.0.0.1", ideToken: undefined, allowedHosts: [] },
      policy: new PathPolicy(
        await resolveRoots([
          { name: ROOT.project, path: ws.project, writable: true },
          { name: ROOT.assets, path: ws.assets, writable: true },
        ]),
      ),
      log: silentLogger,
      runtime,
      auth: team.auth,
      audit,
      cluster,
    });
    await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve));
    const port = (app.server.address() as AddressInfo).port;
    await waitUntil(() => cluster.connected, 15_000, `${id} on Redis`);
    return { app, runtime, cluster, base: `http://127.0.0.1:${port}` };
  }

  async function windowOf(user: string, on: Instance): Promise<{ socket: Socket; events: AgentEvent[] }> {
    const socket = await connectClient(on.base, { cookie: `${SESSION_COOKIE}=${signSession(SECRET, user)}` });
    sockets.push(socket);
    return { socket, events: collectAgentEvents(socket) };
  }

  beforeAll(async () => {
    [ws, data, redis] = await Promise.all([makeWorkspace(), makeDataDir(), startRedis()]);
    const usersFile = path.join(ws.dir, "users.json");
    const users = [
      { name: "ada", secret: await hashSecret("ada-secret-horse") },
      { name: "bob", secret: await hashSecret("bob-secret-staple") },
    ];
    await writeFile(usersFile, JSON.stringify({ users }));
    instances.push(await startInstance("web-a", usersFile), await startInstance("web-b", usersFile));
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const i of instances) {
      await i.app.close();
      await i.cluster.close();
    }
    await redis?.remove();
    await ws?.remove();
    await data?.remove();
  });

  it("refuses bob's Stop of ada's run from another instance and a second run of the thread, and takes ada's Stop", async () => {
    const [a, b] = instances as [Instance, Instance];
    const adaOnA = await windowOf("ada", a);
    const run = await call<{ runId: string; threadId: string }>(adaOnA.socket, "agent/run", { text: "spin" });
    if (!run.ok) throw new Error(run.error.message);
    await waitUntil(
      () => adaOnA.events.find((e) => e.type === "tool_start" && e.runId === run.data.runId),
      20_000,
      "the spinning call on A",
    );

    const bobOnB = await windowOf("bob", b);
    expect(await call(bobOnB.socket, "agent/cancel", { runId: run.data.runId })).toMatchObject({
      ok: false,
      error: { code: "not_found:run" },
    });
    // Had bob's Stop been taken, ada's below would find no run.

    const adaOnB = await windowOf("ada", b);
    // One run per thread, whichever instance a message reaches: B refuses a second one while A runs it.
    expect(await call(adaOnB.socket, "agent/run", { threadId: run.data.threadId, text: "spin" })).toMatchObject({
      ok: false,
      error: { code: "conflict:agent" },
    });
    expect(await call(adaOnB.socket, "agent/cancel", { runId: run.data.runId })).toEqual({
      ok: true,
      data: { runId: run.data.runId },
    });
    const final = await waitUntil(
      () => adaOnA.events.find((e) => e.type === "final" && e.runId === run.data.runId),
      10_000,
      "the stopped run's final",
    );
    expect(final).toMatchObject({ stopReason: "cancelled" });
  });
});
