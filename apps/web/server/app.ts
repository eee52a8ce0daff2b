import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { FileChangedEvent, HealthResponse, Surface } from "@textide/shared";
import { removeStaleTemps, type PathPolicy } from "@textide/shared/node";
import { LOCAL_USER, localMe, noSignIn, rememberUser, userOf, type Auth } from "./auth/auth.js";
import type { WebAuditLog } from "./auth/audit.js";
import type { WebConfig } from "./config.js";
import { createBroadcast } from "./broadcast.js";
import type { Cluster } from "./cluster/cluster.js";
import { AppError, toAppError } from "./errors.js";
import { createFileIndex, type FileIndex } from "./fs/file-index.js";
import { deleteEntry, postCreate, postRename } from "./http/file-ops.js";
import { getFileSearch } from "./http/file-search.js";
import { getFile, getRaw, getTree, putFile } from "./http/files.js";
import { postOpenFile } from "./http/open-file.js";
import { getTable } from "./http/table.js";
import { getMcpCalls } from "./http/mcp-calls.js";
import { getModel, getThread, getThreads } from "./http/threads.js";
import { sendError, sendJson } from "./http/respond.js";
import { putUpload } from "./http/upload.js";
import { consoleLogger, type Logger } from "./log.js";
import type { McpCallLog } from "./mcp/call-log.js";
import type { AgentRuntime } from "./runtime/agent-runtime.js";
import { allowedHostnames, checkHostAndOrigin, checkRequestTarget } from "./security/request-guard.js";
import { registerAgentHandlers } from "./socket/agent-handlers.js";
import { createIo, type Io } from "./socket/io.js";
import { createWatcher, type WorkspaceWatcher } from "./watcher.js";

export interface WebServerDeps {
  config: Pick<WebConfig, "host" | "ideToken" | "allowedHosts"> & Partial<Pick<WebConfig, "uploadMaxBytes" | "watch">>;
  policy: PathPolicy;
  log?: Logger;
  /** The agent: adds `agent/*` socket events and `/api/threads`, `/api/model`. Closed with the server. */
  runtime?: AgentRuntime;
  /** The MCP call log: adds `GET /api/mcp-calls` and the `mcp/call` socket event. */
  calls?: McpCallLog;
  /** The UI (Next.js): answers every path outside `/api/` and `/socket.io`, after the same request checks. */
  ui?: UiHandler;
  /** Team deployment: the other instances, through Redis (events, Stop, approvals, file changes). */
  cluster?: Cluster;
  /**
   * Sign-in (team mode): every `/api/*` route but health and `/api/auth/*`, the socket.io handshake and the
   * pages need a signed-in user. Without it the server is single-user and everybody is "local".
   */
  auth?: Auth;
  /** Where runs started are recorded with their user (`audit.jsonl`). */
  audit?: WebAuditLog;
}

export interface UiHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Dev only: Next's HMR websocket. */
  upgrade?: ((req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>) | undefined;
}

export interface WebServer {
  server: Server;
  io: Io;
  watcher: WorkspaceWatcher;
  /** Quick open's file list, kept current by the watcher. */
  fileIndex: FileIndex;
  close(): Promise<void>;
}

type Handler = (url: URL, req: IncomingMessage, res: ServerResponse) => Promise<void>;

const MUTATING = new Set(["PUT", "POST", "DELETE", "PATCH"]);
const DEFAULT_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

/** Paths (or request targets) the web server answers itself; everything else is the UI's. */
function isServerPath(target: string): boolean {
  return target.startsWith("/api/") || target === "/api" || target.startsWith("/socket.io");
}

/** Pages a signed-out browser may load: the sign-in page and what it is built from. */
function isPublicPage(pathname: string): boolean {
  return (
    pathname === "/sign-in" || pathname.startsWith("/_next/") || pathname === "/icon.svg" || pathname === "/favicon.ico"
  );
}

/** The web server: REST file API under `/api/`, socket.io at `/socket.io`, the UI, and the workspace watcher. */
export function createWebServer({
  config,
  policy,
  log = consoleLogger,
  runtime,
  calls,
  ui,
  cluster,
  auth,
  audit,
}: WebServerDeps): WebServer {
  const allowedHosts = allowedHostnames(config.host, config.allowedHosts);
  const server = createServer();
  // Before createIo: engine.io wraps the listeners present when it attaches and passes them only
  // requests outside /socket.io/. Added after it, this listener also answered engine.io's polling
  // requests (404), and engine.io's own reply then threw ERR_HTTP_HEADERS_SENT.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => respond(req, res));
  const io = createIo(server, { allowedHosts, ...(auth ? { identify: (req) => auth.identify(req) } : {}) });
  const broadcast = createBroadcast(io, cluster);
  const files = { policy };
  const fileIndex = createFileIndex(policy, {
    onError: (err) => log.warn("file index walk failed", { err: String(err) }),
  });
  // Temp files and locks of writes cut short by a kill; in the background, start-up does not wait.
  void removeStaleTemps(policy.roots).then(
    (count) => count > 0 && log.info("removed files left by interrupted saves", { count }),
    (err: unknown) => log.warn("could not look for files left by interrupted saves", { err: String(err) }),
  );
  const ops = { policy, index: fileIndex };
  const upload = { ...ops, maxBytes: config.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES };

  const routes: Record<string, Partial<Record<string, Handler>>> = {
    "/api/health": {
      GET: async (_url, _req, res) => {
        await Promise.resolve();
        const health: HealthResponse = {
          ok: true,
          roots: policy.roots.map((r) => ({ name: r.name, path: r.real })),
          ...(cluster ? { instance: cluster.instanceId, redis: cluster.connected ? "up" : "down" } : {}),
        };
        sendJson(res, 200, health);
      },
    },
    "/api/tree": { GET: (url, _req, res) => getTree(files, url, res) },
    "/api/file": {
      GET: (url, _req, res) => getFile(files, url, res),
      PUT: (url, req, res) => putFile(files, url, req, res),
    },
    "/api/raw": { GET: (url, _req, res) => getRaw(files, url, res) },
    "/api/table": { GET: (url, _req, res) => getTable(files, url, res) },
    "/api/fs/create": { POST: (_url, req, res) => postCreate(ops, req, res) },
    "/api/fs/rename": { POST: (_url, req, res) => postRename(ops, req, res) },
    "/api/fs": { DELETE: (url, _req, res) => deleteEntry(ops, url, res) },
    "/api/upload": { PUT: (url, req, res) => putUpload(upload, url, req, res) },
    "/api/files": { GET: (url, _req, res) => getFileSearch(fileIndex, url, res) },
    "/api/open-file": {
      POST: (_url, req, res) => postOpenFile({ policy, broadcast, token: config.ideToken }, req, res),
    },
    "/api/auth/me": {
      GET: (_url, req, res) => (auth ? auth.me(req, res) : localMe(res)),
    },
    "/api/auth/sign-in": { POST: (_url, req, res) => (auth ? auth.signIn(req, res) : noSignIn()) },
    "/api/auth/sign-out": { POST: (_url, req, res) => (auth ? auth.signOut(req, res) : noSignIn()) },
  };
  if (runtime) {
    routes["/api/threads"] = { GET: (_url, req, res) => getThreads(runtime, userOf(req), res) };
    routes["/api/model"] = { GET: (_url, _req, res) => getModel(runtime, res) };
    registerAgentHandlers(io, runtime, broadcast, log, audit, cluster);
  }
  const stopCalls = calls?.onCall((call) => broadcast.mcpCall(call));
  if (calls) routes["/api/mcp-calls"] = { GET: (_url, _req, res) => getMcpCalls(calls, res) };

  /** Where a route's errors happened, for their `${type}:${surface}` code. */
  const surfaceOf = (target: string): Surface => {
    const pathname = target.split("?", 1)[0] ?? "";
    if (pathname === "/api/table") return "table";
    if (pathname === "/api/threads" || pathname.startsWith("/api/threads/")) return "thread";
    if (pathname === "/api/model") return "agent";
    if (pathname === "/api/mcp-calls") return "mcp";
    return pathname in routes && pathname !== "/api/health" ? "file" : "api";
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET";
    checkRequestTarget(req);
    const url = new URL(req.url ?? "/", "http://localhost");
    if (ui && !isServerPath(url.pathname)) {
      // Pages never change files: the Host check alone stops DNS rebinding from reading them.
      checkHostAndOrigin(req, allowedHosts, false);
      if (auth && !isPublicPage(url.pathname) && auth.identify(req) === undefined) {
        const next = encodeURIComponent(url.pathname + url.search);
        res.writeHead(302, { location: `/sign-in?next=${next}`, "cache-control": "no-store" });
        res.end();
        return;
      }
      return ui.handle(req, res);
    }
    checkHostAndOrigin(req, allowedHosts, MUTATING.has(method));
    if (url.pathname !== "/api/health" && !url.pathname.startsWith("/api/auth/")) {
      rememberUser(req, auth ? auth.require(req) : LOCAL_USER);
    }
    const threadId = runtime && /^\/api\/threads\/([^/]+)$/.exec(url.pathname)?.[1];
    if (threadId) {
      if (method !== "GET") {
        throw new AppError(405, "method_not_allowed", `${method} is not allowed on ${url.pathname}.`, {
          surface: "api",
          headers: { allow: "GET" },
        });
      }
      return getThread(runtime, threadId, userOf(req), res);
    }
    const route = routes[url.pathname];
    if (!route) throw new AppError(404, "not_found", `No route ${url.pathname}.`, { surface: "api" });
    const handler = route[method];
    if (!handler) {
      throw new AppError(405, "method_not_allowed", `${method} is not allowed on ${url.pathname}.`, {
        surface: "api",
        headers: { allow: Object.keys(route).join(", ") },
      });
    }
    await handler(url, req, res);
  };

  function respond(req: IncomingMessage, res: ServerResponse): void {
    handle(req, res).catch((err: unknown) => {
      const appErr = toAppError(err);
      if (appErr.status >= 500)
        log.error("request failed", { url: req.url, err: String(err), stack: (err as Error).stack });
      sendError(res, appErr, surfaceOf(req.url ?? "/"));
    });
  }

  cluster?.attach(io, policy, (e) => fileIndex.apply(e));
  const onChanges = (events: FileChangedEvent[]): void => {
    for (const e of events) {
      fileIndex.apply(e);
      broadcast.fileChanged(e);
    }
  };
  // TEXTIDE_WATCH=off: the other instances' watchers report the changes (see Cluster.attach).
  const watcher: WorkspaceWatcher =
    config.watch === false
      ? { ready: Promise.resolve(), close: () => Promise.resolve() }
      : createWatcher(policy, onChanges, { onError: (err) => log.warn("watcher error", { err: String(err) }) });

  const upgradeUi = ui?.upgrade;
  if (upgradeUi) {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!isServerPath(req.url ?? "/")) void upgradeUi(req, socket, head);
    });
  }

  let closing: Promise<void> | undefined;
  return {
    server,
    io,
    watcher,
    fileIndex,
    close() {
      closing ??= (async () => {
        // Runs end first (their tools may still write), then the watcher and sockets.
        await runtime?.close();
        stopCalls?.();
        await watcher.close();
        // io.close() also closes the HTTP server; open keep-alive connections would hold it.
        const closed = new Promise<void>((resolve) => {
          void io.close(() => resolve());
        });
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
