/**
 * Sign-in on a team deployment (issue 16): the web server configured as for a non-loopback listener (users
 * file, session secret, trusted proxy header), reached with real HTTP requests and real socket.io clients;
 * threads run on the offline planner over the real bundled MCP server; per-user MCP tokens on the real MCP
 * HTTP child. A second user is refused every way into the first user's thread.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ROOT, type AgentEvent } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebServer, type WebServer } from "../server/app.js";
import { createWebAuditLog } from "../server/auth/audit.js";
import { teamAuth } from "../server/auth/from-config.js";
import { hashSecret, hashToken, newToken } from "../server/auth/secrets.js";
import { SESSION_TTL_MS, signSession } from "../server/auth/session.js";
import { loadConfig } from "../server/config.js";
import { silentLogger } from "../server/log.js";
import { McpCallLog } from "../server/mcp/call-log.js";
import { startMcpHttpChild, type McpHttpChild } from "../server/mcp/http-child.js";
import { createAgentRuntime, type AgentRuntime } from "../server/runtime/agent-runtime.js";
import { createIo } from "../server/socket/io.js";
import { call, collectAgentEvents, makeDataDir, MCP_SERVER_BIN, waitUntil } from "./agent-helpers.js";
import { connectClient, makeWorkspace, request, sleep, type Reply, type Workspace } from "./helpers.js";

const SECRET = "a-session-secret-of-at-least-32-characters";
const PLANETS = "pie chart of the largest planets from planets.xlsx";
const PASSWORDS = { ada: "ada-secret-horse", bob: "bob-secret-staple", eve: "eve-secret-battery" };
const MCP_TOKENS = { ada: newToken(), bob: newToken() };

interface Served {
  app: WebServer;
  port: number;
  base: string;
}

let ws: Workspace;
let data: { dir: string; remove(): Promise<void> };
let runtime: AgentRuntime;
let main: Served;
/** The same users behind a proxy at 127.0.0.1 that signs people in with X-Forwarded-User. */
let proxied: Served;
let usersFile: string;
const sockets: Socket[] = [];

async function serve(env: Record<string, string>, withRuntime: boolean): Promise<Served> {
  // The configuration a non-loopback listener needs, read as `npm start` reads it.
  const config = loadConfig({ HOST: "0.0.0.0", TEXTIDE_DATA_DIR: data.dir, ...env }, ws.dir);
  const audit = createWebAuditLog(config.dataDir, silentLogger);
  const team = teamAuth(config.team, audit);
  if (!team) throw new Error("expected team mode");
  const roots = await resolveRoots([
    { name: ROOT.project, path: ws.project, writable: true },
    { name: ROOT.assets, path: ws.assets, writable: true },
  ]);
  const app = createWebServer({
    config: { host: "0.0.0.0", ideToken: undefined, allowedHosts: [] },
    policy: new PathPolicy(roots),
    log: silentLogger,
    auth: team.auth,
    audit,
    ...(withRuntime ? { runtime } : {}),
    // Stands in for Next.js: the redirect to the sign-in page happens before any page is rendered.
    ui: {
      handle: (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("page");
        return Promise.resolve();
      },
    },
  });
  await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  await app.watcher.ready;
  const port = (app.server.address() as AddressInfo).port;
  return { app, port, base: `http://127.0.0.1:${port}` };
}

const teamEnv = (): Record<string, string> => ({
  TEXTIDE_USERS_FILE: usersFile,
  TEXTIDE_SESSION_SECRET: SECRET,
  TEXTIDE_TRUSTED_USER_HEADER: "X-Forwarded-User",
  // Nobody here: the header is never believed on `main`.
  TEXTIDE_TRUSTED_PROXIES: "10.255.255.1",
});

beforeAll(async () => {
  ws = await makeWorkspace();
  data = await makeDataDir();
  usersFile = path.join(ws.dir, "users.json");
  const users = await Promise.all(
    Object.entries(PASSWORDS).map(async ([name, secret]) => ({
      name,
      secret: await hashSecret(secret),
      ...(name in MCP_TOKENS ? { mcpToken: hashToken(MCP_TOKENS[name as keyof typeof MCP_TOKENS]) } : {}),
    })),
  );
  await writeFile(usersFile, JSON.stringify({ users }));
  runtime = createAgentRuntime({
    projectRoot: ws.project,
    generatedAssets: ws.assets,
    dataDir: data.dir,
    mcpServerBin: MCP_SERVER_BIN,
    toolTimeoutMs: 30_000,
    modelEnv: {},
    // The offline planner's chart runs exec_run_js: each run stops there until its owner answers.
    approveTools: ["exec_run_js"],
  });
  main = await serve(teamEnv(), true);
  proxied = await serve({ ...teamEnv(), TEXTIDE_TRUSTED_PROXIES: "127.0.0.1" }, false);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await main?.app.close();
  await proxied?.app.close();
  await ws?.remove();
  await data?.remove();
});

const cookieOf = (r: Reply): string => {
  const set = r.headers["set-cookie"]?.[0] ?? "";
  return set.split(";", 1)[0] ?? "";
};

async function signIn(name: string, secret: string, port = main.port, headers: Record<string, string> = {}) {
  return request(port, "POST", "/api/auth/sign-in", { body: { name, secret }, headers });
}

const sessions: Partial<Record<"ada" | "bob", string>> = {};
async function sessionOf(user: "ada" | "bob"): Promise<string> {
  sessions[user] ??= cookieOf(await signIn(user, PASSWORDS[user]));
  return sessions[user];
}

async function socketOf(user: "ada" | "bob"): Promise<Socket> {
  const socket = await connectClient(main.base, { cookie: await sessionOf(user) });
  sockets.push(socket);
  return socket;
}

async function auditLines(): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(data.dir, "audit.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("team mode configuration", () => {
  it("refuses to listen beyond loopback without a way to sign in, and keeps loopback single-user", () => {
    expect(() => loadConfig({ HOST: "0.0.0.0" })).toThrow(/TEXTIDE_USERS_FILE.*TEXTIDE_TRUSTED_USER_HEADER/);
    expect(() => loadConfig({ HOST: "0.0.0.0", TEXTIDE_USERS_FILE: usersFile })).toThrow(/TEXTIDE_SESSION_SECRET/);
    expect(() => loadConfig({ HOST: "0.0.0.0", TEXTIDE_SESSION_SECRET: "short" })).toThrow(/at least 32/);
    expect(() =>
      loadConfig({ HOST: "::", TEXTIDE_TRUSTED_USER_HEADER: "X-Forwarded-User", TEXTIDE_SESSION_SECRET: SECRET }),
    ).toThrow(/TEXTIDE_TRUSTED_PROXIES/);
    expect(loadConfig({ HOST: "127.0.0.1" }).team).toBeUndefined();
    expect(loadConfig({}).team).toBeUndefined();
    // A copied .env.example leaves them empty: that is unset.
    expect(
      loadConfig({ TEXTIDE_USERS_FILE: "", TEXTIDE_SESSION_SECRET: "", TEXTIDE_TRUSTED_USER_HEADER: "" }).team,
    ).toBeUndefined();
    // A users file turns sign-in on even on loopback.
    expect(loadConfig({ TEXTIDE_USERS_FILE: usersFile, TEXTIDE_SESSION_SECRET: SECRET }).team).toBeDefined();
  });
});

describe("sign-in", () => {
  it("signs in with the right secret: an HttpOnly, SameSite=Lax session cookie that /api/auth/me knows", async () => {
    const r = await signIn("ada", PASSWORDS.ada);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ user: "ada" });
    const set = r.headers["set-cookie"]?.[0] ?? "";
    expect(set).toMatch(/^textide_session=[^;]+; Max-Age=\d+; HttpOnly; SameSite=Lax; Path=\/$/);
    const me = await request(main.port, "GET", "/api/auth/me", { headers: { cookie: cookieOf(r) } });
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ user: "ada", team: true });
  });

  it("refuses a wrong secret and an unknown user with the same answer", async () => {
    const wrong = await signIn("bob", "not-bobs-secret");
    const unknown = await signIn("mallory", "whatever-secret");
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.headers["set-cookie"]).toBeUndefined();
      expect((r.json() as { error: { message: string } }).error.message).toMatch(/do not match/);
    }
  });

  it("stops trying after five failures for one user from one address, even with the right secret", async () => {
    for (let i = 0; i < 5; i++) expect((await signIn("eve", `wrong-${i}-secret`)).status).toBe(401);
    const limited = await signIn("eve", PASSWORDS.eve);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect((limited.json() as { error: { message: string } }).error.message).toMatch(/Too many failed sign-ins/);
    // Another user from the same address is not held back by eve's failures.
    expect((await signIn("bob", PASSWORDS.bob)).status).toBe(200);
  });

  it("refuses a tampered, an expired and a foreign-secret cookie", async () => {
    const good = (await sessionOf("ada")).slice("textide_session=".length);
    const [body, mac] = good.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ u: "bob", exp: Date.now() + 60_000 })).toString("base64url");
    const bad = [
      `${forged}.${mac}`,
      `${body}.${mac.slice(0, -2)}AA`,
      signSession(SECRET, "ada", Date.now() - SESSION_TTL_MS - 1000),
      signSession("another-secret-of-at-least-32-characters", "ada"),
      // Well signed, but for a user the users file does not (or no longer) name.
      signSession(SECRET, "zed"),
      "garbage",
    ];
    for (const value of bad) {
      const r = await request(main.port, "GET", "/api/tree", { headers: { cookie: `textide_session=${value}` } });
      expect(r.status, value).toBe(401);
    }
  });

  it("signs out: the cookie is cleared", async () => {
    const cookie = cookieOf(await signIn("bob", PASSWORDS.bob));
    const r = await request(main.port, "POST", "/api/auth/sign-out", { body: {}, headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.headers["set-cookie"]?.[0]).toMatch(/^textide_session=; Max-Age=0;/);
  });
});

describe("without a session", () => {
  const routes: [string, string][] = [
    ["GET", "/api/tree"],
    ["GET", "/api/file?path=README.md"],
    ["PUT", "/api/file?path=x.txt"],
    ["GET", "/api/raw?path=README.md"],
    ["GET", "/api/table?path=data/planets.xlsx"],
    ["POST", "/api/fs/create"],
    ["POST", "/api/fs/rename"],
    ["DELETE", "/api/fs?path=README.md"],
    ["PUT", "/api/upload?path=x.bin"],
    ["GET", "/api/files?q=a"],
    ["POST", "/api/open-file"],
    ["GET", "/api/threads"],
    ["GET", "/api/threads/some-thread"],
    ["GET", "/api/model"],
    ["GET", "/api/nowhere"],
  ];

  it("every REST route but health and sign-in answers 401 with what to do", async () => {
    for (const [method, p] of routes) {
      const r = await request(main.port, method, p, method === "GET" ? {} : { body: {} });
      expect(r.status, `${method} ${p}`).toBe(401);
      expect((r.json() as { error: { message: string } }).error.message).toMatch(/Sign in first/);
    }
    expect((await request(main.port, "GET", "/api/health")).status).toBe(200);
    expect((await request(main.port, "GET", "/api/auth/me")).status).toBe(401);
  });

  it("pages redirect to the sign-in page, which loads", async () => {
    const r = await request(main.port, "GET", "/?x=1");
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe(`/sign-in?next=${encodeURIComponent("/?x=1")}`);
    expect((await request(main.port, "GET", "/sign-in")).status).toBe(200);
    const cookie = await sessionOf("ada");
    expect((await request(main.port, "GET", "/", { headers: { cookie } })).status).toBe(200);
  });

  it("the socket.io handshake is refused, over websocket and polling", async () => {
    await expect(connectClient(main.base)).rejects.toThrow();
    const poll = await request(main.port, "GET", "/socket.io/?EIO=4&transport=polling");
    expect(poll.status).toBe(403);
    expect(poll.body.toString()).toMatch(/Sign in first/);
    const withCookie = await request(main.port, "GET", "/socket.io/?EIO=4&transport=polling", {
      headers: { cookie: await sessionOf("ada") },
    });
    expect(withCookie.status).toBe(200);
  });
});

describe("a thread is its owner's alone", () => {
  let ada: Socket;
  let bob: Socket;
  let adaEvents: AgentEvent[];
  let bobEvents: AgentEvent[];
  const outputs: Record<"ada" | "bob", unknown[]> = { ada: [], bob: [] };
  let threadId = "";

  const finalOf = (runId: string) =>
    waitUntil(() => adaEvents.find((e) => e.type === "final" && e.runId === runId), 60_000, `final of ${runId}`);

  beforeAll(async () => {
    ada = await socketOf("ada");
    bob = await socketOf("bob");
    adaEvents = collectAgentEvents(ada);
    bobEvents = collectAgentEvents(bob);
    ada.on("agent/outputs", (e: unknown) => outputs.ada.push(e));
    bob.on("agent/outputs", (e: unknown) => outputs.bob.push(e));
  });

  it("ada's run stops for her approval; her thread is listed and readable for her", async () => {
    const ack = await call<{ runId: string; threadId: string }>(ada, "agent/run", { text: PLANETS });
    expect(ack.ok).toBe(true);
    if (!ack.ok) return;
    threadId = ack.data.threadId;
    expect(await finalOf(ack.data.runId)).toMatchObject({ stopReason: "awaiting_approval" });
    const cookie = await sessionOf("ada");
    const list = await request(main.port, "GET", "/api/threads", { headers: { cookie } });
    expect((list.json() as { threads: { threadId: string }[] }).threads.map((t) => t.threadId)).toEqual([threadId]);
    const read = await request(main.port, "GET", `/api/threads/${threadId}`, { headers: { cookie } });
    expect(read.status).toBe(200);
  }, 90_000);

  it("bob cannot list, read, continue, approve or follow it; each answer is that of a thread that does not exist", async () => {
    const cookie = await sessionOf("bob");
    const list = await request(main.port, "GET", "/api/threads", { headers: { cookie } });
    expect(list.json()).toEqual({ threads: [] });

    const read = await request(main.port, "GET", `/api/threads/${threadId}`, { headers: { cookie } });
    const none = await request(main.port, "GET", "/api/threads/no-such-thread", { headers: { cookie } });
    expect(read.status).toBe(404);
    expect(none.status).toBe(404);
    expect((read.json() as { error: { message: string } }).error.message).toBe(`No thread ${threadId}.`);

    const cont = await call(bob, "agent/run", { threadId, text: "and now show me everything" });
    expect(cont).toMatchObject({ ok: false, error: { message: `No thread ${threadId}.` } });
    const approve = await call(bob, "agent/approve", { threadId, decision: "approve" });
    expect(approve).toMatchObject({ ok: false });
    expect(JSON.stringify(approve)).toMatch(/No thread|no pending approval/);
    const follow = await call(bob, "agent/follow", { threadId });
    expect(follow).toMatchObject({ ok: false, error: { message: `No thread ${threadId}.` } });
  });

  it("bob cannot stop ada's run, and receives none of its events or outputs", async () => {
    const ack = await call<{ runId: string; threadId: string }>(ada, "agent/approve", {
      threadId,
      decision: "approve",
    });
    expect(ack.ok).toBe(true);
    if (!ack.ok) return;
    const { runId } = ack.data;
    const stop = await call(bob, "agent/cancel", { runId });
    expect(stop).toMatchObject({ ok: false, error: { message: `No active run ${runId}.` } });
    // The run was still under way when bob was refused (its sandbox call alone outlasts the round trip)…
    expect(adaEvents.some((e) => e.type === "final" && e.runId === runId)).toBe(false);
    // …and it went on, not stopped; ada answers each further approval until the chart is made.
    let final = await finalOf(runId);
    for (let i = 0; i < 5 && final.type === "final" && final.stopReason === "awaiting_approval"; i++) {
      const next = await call<{ runId: string }>(ada, "agent/approve", { threadId, decision: "approve" });
      if (!next.ok) break;
      final = await finalOf(next.data.runId);
    }
    expect(final).toMatchObject({ stopReason: "done" });
    await sleep(200);
    expect(bobEvents.filter((e) => e.threadId === threadId)).toEqual([]);
    expect(adaEvents.some((e) => e.runId === runId && e.type === "tool_start")).toBe(true);
    // The chart opens in ada's windows only.
    expect(outputs.ada.length).toBeGreaterThan(0);
    expect(outputs.bob).toEqual([]);
  }, 90_000);

  it("the audit log names who signed in, who failed and who started each run", async () => {
    const lines = await auditLines();
    expect(lines).toContainEqual(expect.objectContaining({ kind: "sign-in", user: "ada", address: "127.0.0.1" }));
    expect(lines).toContainEqual(expect.objectContaining({ kind: "sign-in-failed", user: "eve", reason: "wrong" }));
    expect(lines).toContainEqual(
      expect.objectContaining({ kind: "sign-in-failed", user: "eve", reason: "rate-limited" }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ kind: "sign-out", user: "bob" }));
    const runs = lines.filter((l) => l.kind === "run");
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const r of runs) expect(r).toMatchObject({ user: "ada", threadId });
    // The agent's sandbox calls are in the exec audit log under `<runId>:<call>`: each joins a run line's user.
    const exec = (await readFile(path.join(data.dir, "exec-audit.jsonl"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { correlationId: string });
    const runIds = new Set(runs.map((r) => String(r.runId)));
    expect(exec.length).toBeGreaterThan(0);
    for (const e of exec) expect(runIds.has(e.correlationId.split(":")[0] ?? "")).toBe(true);
    for (const l of lines) expect(typeof l.time).toBe("string");
  });
});

describe("trusted proxy header", () => {
  it("is believed only from a TEXTIDE_TRUSTED_PROXIES address", async () => {
    const headers = { "x-forwarded-user": "carol" };
    const trusted = await request(proxied.port, "GET", "/api/auth/me", { headers });
    expect(trusted.status).toBe(200);
    expect(trusted.json()).toMatchObject({ user: "carol" });
    expect((await request(proxied.port, "GET", "/api/tree", { headers })).status).toBe(200);
    const socket = await connectClient(proxied.base, headers);
    socket.close();
    // `main` trusts 10.255.255.1 only: the same header from 127.0.0.1 is anybody's.
    expect((await request(main.port, "GET", "/api/auth/me", { headers })).status).toBe(401);
    expect((await request(main.port, "GET", "/api/tree", { headers })).status).toBe(401);
    await expect(connectClient(main.base, headers)).rejects.toThrow();
  });

  it("marks the cookie Secure when the trusted proxy says the browser used https", async () => {
    const r = await signIn("bob", PASSWORDS.bob, proxied.port, { "x-forwarded-proto": "https" });
    expect(r.headers["set-cookie"]?.[0]).toMatch(/; Secure$/);
    const direct = await signIn("bob", PASSWORDS.bob, main.port, { "x-forwarded-proto": "https" });
    expect(direct.headers["set-cookie"]?.[0]).not.toMatch(/Secure/);
  });
});

describe("per-user MCP tokens on the MCP HTTP endpoint", () => {
  let child: McpHttpChild;
  let url: string;
  const execAudit = () => path.join(data.dir, "exec-audit.jsonl");

  beforeAll(async () => {
    child = startMcpHttpChild({
      bin: MCP_SERVER_BIN,
      projectRoot: ws.project,
      generatedAssets: ws.assets,
      auditLog: execAudit(),
      host: "127.0.0.1",
      port: 0,
      token: newToken(),
      userTokens: Object.entries(MCP_TOKENS).map(([user, token]) => ({ user, sha256: hashToken(token) })),
      ideUrl: main.base,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      logLevel: "warn",
      calls: new McpCallLog(),
      log: silentLogger,
    });
    url = await child.ready;
  }, 30_000);

  afterAll(() => child?.close());

  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: "team-auth-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };

  it("accepts a user's own token and records the user in the exec audit log", async () => {
    const client = await connect(MCP_TOKENS.ada);
    try {
      const result = await client.callTool({ name: "exec_run_js", arguments: { code: "return 6 * 7" } });
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    const lines = (await readFile(execAudit(), "utf8")).split("\n").filter(Boolean);
    expect(lines.map((l) => JSON.parse(l) as { user?: string; codePreview: string })).toContainEqual(
      expect.objectContaining({ user: "ada", codePreview: "return 6 * 7" }),
    );
  }, 60_000);

  it("refuses an unknown token, and another user's token on a user's session", async () => {
    await expect(connect(newToken())).rejects.toThrow(/401|bearer token is wrong/i);
    const post = (token: string, body: unknown, session?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post(MCP_TOKENS.ada, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    await init.body?.cancel();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const asBob = await post(MCP_TOKENS.bob, list, session);
    expect(asBob.status).toBe(404);
    await asBob.body?.cancel();
    const asAda = await post(MCP_TOKENS.ada, list, session);
    expect(asAda.status).toBe(200);
    await asAda.body?.cancel();
  }, 30_000);
});

describe("an open socket whose session expires", () => {
  it("is closed by the server", async () => {
    const server = createServer();
    let valid = true;
    const io = createIo(server, {
      allowedHosts: new Set(["127.0.0.1"]),
      identify: () => (valid ? "ada" : undefined),
      recheckMs: 100,
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = await connectClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const closed = new Promise<string>((resolve) => socket.once("disconnect", resolve));
      await sleep(300);
      expect(socket.connected).toBe(true);
      valid = false;
      expect(await closed).toBe("io server disconnect");
    } finally {
      socket.close();
      await new Promise<void>((resolve) => void io.close(() => resolve()));
    }
  });
});
