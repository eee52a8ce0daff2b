import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isLegacyRequest,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from "@modelcontextprotocol/server";
import type { FsServer } from "../server.js";
import { bearerIdentity, userAuthInfo, type UserToken } from "./bearer-auth.js";
import { endStreamsOfCancelledRequests } from "./cancelled-streams.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import { SessionTable, type SessionLimits } from "./session-table.js";

/**
 * Defaults: a session takes about 33 KB, so these bound them to about 17 MB per token and 34 MB in
 * all, and still let 200 clients sharing the one token (the load bench) keep their sessions.
 */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { perToken: 512, total: 1024 };

export interface HttpHandlerOptions {
  /** Required bearer token; undefined disables the check (loopback-only, see config). */
  token: string | undefined;
  /**
   * Users' own tokens (by SHA-256), accepted beside `token` when that is set; their tool calls carry the
   * user (`authInfo.clientId`) into the exec audit log, and a session opened with one serves only it.
   */
  userTokens?: readonly UserToken[];
  /** Hostnames accepted in Host and Origin besides the loopback names. */
  allowedHosts: string[];
  /** A 2025-11-25 session idle for longer than this is closed. */
  sessionIdleMs: number;
  /**
   * Starts every session id, followed by "~": several servers behind one proxy each hold their own
   * sessions in memory, and the proxy routes a session back to its server by this prefix.
   */
  sessionPrefix?: string;
  /** Open 2025-11-25 sessions at most; past them the least recently used one is closed. */
  sessionLimits?: SessionLimits;
  path?: string;
}

/** One header by lower-case name, as `Headers.get` answers it. */
export type HeaderLookup = (name: string) => string | null;

export interface HttpHandler {
  /**
   * Request target, Host, Origin and bearer token: the refusal to send, or undefined to go on. Needs
   * only the target and headers, so a server can run it before reading any of the body.
   */
  check(target: string, header: HeaderLookup): Response | undefined;
  /** Runs {@link check}, then serves the request. */
  fetch(request: Request): Promise<Response>;
  /** Open 2025-11-25 sessions (for tests and logs). */
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer | { close(): Promise<void> };
  /** The user whose token opened it (undefined: the shared token). */
  user?: string | undefined;
}

/**
 * Streamable HTTP for both protocol revisions on one endpoint: 2026-07-28 requests go to the
 * SDK's stateless per-request handler; 2025-11-25 traffic gets sessionful transports keyed by
 * `Mcp-Session-Id` (unknown ids: 404; idle ones reaped; capped per token and in total). Target,
 * Host, Origin and bearer token are checked before anything else.
 */
export function createHttpHandler(fs: FsServer, opts: HttpHandlerOptions): HttpHandler {
  const endpoint = opts.path ?? "/mcp";
  const allowed = [...localhostAllowedHostnames(), ...opts.allowedHosts];
  const sessions = new SessionTable<Session>(opts.sessionLimits ?? DEFAULT_SESSION_LIMITS);
  const log = fs.ctx.log;
  const userTokens = opts.userTokens ?? [];
  /** Who sent a request that passed {@link check}: a user's name, or undefined for the shared token. */
  const userOf = (authorization: string | null): string | undefined => {
    if (opts.token === undefined) return undefined;
    const id = bearerIdentity(authorization, opts.token, userTokens);
    return id.ok ? id.user : undefined;
  };
  const modern = createMcpHandler(fs.factory, {
    legacy: "reject",
    maxRequestBodySize: MAX_MESSAGE_BYTES,
    onerror: (err) => log.debug({ err: err.message }, "modern request rejected"),
  });

  const reaper = setInterval(() => reapIdle(), Math.min(opts.sessionIdleMs / 2, 60_000));
  reaper.unref();

  function end(session: Session): void {
    void session.transport.close();
    void session.server.close();
  }

  function reapIdle(now = Date.now()): void {
    for (const [id, s] of sessions.takeIdle(now - opts.sessionIdleMs)) {
      end(s);
      log.info({ sessionId: id }, "idle MCP session closed");
    }
  }

  function check(target: string, header: HeaderLookup): Response | undefined {
    // Origin-form only: an absolute-form target (`POST http://elsewhere/mcp`) is for proxies.
    if (!target.startsWith("/") || target.startsWith("//")) {
      return jsonRpcError(400, -32000, `Bad Request: the request target must be a path such as ${endpoint}.`);
    }
    const pathname = target.split("?", 1)[0] ?? "";
    if (pathname !== endpoint) {
      if (OAUTH_PATHS.test(pathname)) return noOAuth(opts.token, userTokens, header("authorization"));
      return new Response("Not found. The MCP endpoint is " + endpoint, { status: 404, headers: TEXT });
    }
    const host = validateHostHeader(header("host"), allowed);
    if (!host.ok)
      return jsonRpcError(403, -32000, `Forbidden: Host header not allowed (${host.message ?? "invalid"}).`);
    const origin = validateOriginHeader(header("origin"), allowed);
    if (!origin.ok) return jsonRpcError(403, -32000, "Forbidden: Origin not allowed.");
    if (opts.token !== undefined) {
      const auth = bearerIdentity(header("authorization"), opts.token, userTokens);
      if (!auth.ok) return unauthorized(auth.why);
    }
    return undefined;
  }

  async function legacy(request: Request, user: string | undefined): Promise<Response> {
    const authInfo = user === undefined ? undefined : userAuthInfo(user);
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.touch(sessionId);
      // Another user's session answers as if it did not exist: its id alone must not let anyone in.
      if (!session || session.user !== user)
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it expired, was closed to make room for newer sessions, or never existed. Start a new session with initialize.",
        );
      if (request.method === "GET") return noStandaloneStream();
      return session.transport.handleRequest(request, authInfo ? { authInfo } : undefined);
    }
    if (request.method === "GET") return noStandaloneStream();
    if (request.method !== "POST") {
      return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required.");
    }
    // Each user's sessions count against their own cap; the shared token's against its own.
    const tokenKey = user === undefined ? "" : `user:${user}`;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => (opts.sessionPrefix ? `${opts.sessionPrefix}~${randomUUID()}` : randomUUID()),
      maxRequestBodySize: MAX_MESSAGE_BYTES,
      onsessioninitialized: (id) => {
        for (const [oldId, old] of sessions.add(id, tokenKey, { transport, server, user })) {
          end(old);
          log.info({ sessionId: oldId }, "MCP session closed to stay within the session limit");
        }
        log.info({ sessionId: id, sessions: sessions.size }, "MCP session opened");
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        log.info({ sessionId: id }, "MCP session closed");
      },
    });
    endStreamsOfCancelledRequests(transport);
    const server = await fs.factory({ era: "legacy", requestInfo: request, ...(authInfo ? { authInfo } : {}) });
    await server.connect(transport);
    // A POST without a session that is not `initialize` is answered 400 by the transport itself;
    // its server then serves nobody and is closed at once instead of waiting for the collector.
    const response = await transport.handleRequest(request, authInfo ? { authInfo } : undefined);
    if (transport.sessionId === undefined) end({ transport, server });
    return response;
  }

  return {
    check,
    async fetch(request) {
      const url = new URL(request.url);
      const refusal = check(url.pathname + url.search, (name) => request.headers.get(name));
      if (refusal) return refusal;
      try {
        const isLegacy = await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_MESSAGE_BYTES });
        const user = userOf(request.headers.get("authorization"));
        if (isLegacy) return await legacy(request, user);
        return await modern.fetch(request, user === undefined ? undefined : { authInfo: userAuthInfo(user) });
      } catch (err) {
        log.error({ err }, "HTTP request failed");
        return jsonRpcError(500, -32603, "Internal server error.");
      }
    },
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(reaper);
      reapIdle(Number.POSITIVE_INFINITY);
      await modern.close();
    },
  };
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** Where OAuth clients look for metadata, registration and tokens. */
const OAUTH_PATHS =
  /^\/(?:\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?|register|authorize|token)$/;

const NO_OAUTH =
  "This MCP server does not use OAuth. It takes the bearer token printed when it started (or set with --token / " +
  "MCP_HTTP_TOKEN) as `Authorization: Bearer <token>`; a 401 from it means the token sent was missing or wrong.";

/**
 * OAuth-aware clients (mcp-remote) answer a 401 by discovering an authorization server and registering
 * a client here; what this answers is the error they end up showing. They send the user's own headers
 * along, so the answer can name the real problem: a wrong token is a 401 `invalid_token` that says so
 * first, rather than a 404 that reads as a broken OAuth setup.
 */
function noOAuth(token: string | undefined, users: readonly UserToken[], authorization: string | null): Response {
  // A probe without a token (spec-following discovery) learns there is nothing to discover.
  const id = token === undefined ? undefined : bearerIdentity(authorization, token, users);
  if (id === undefined || id.ok || id.why !== "wrong") return new Response(NO_OAUTH, { status: 404, headers: TEXT });
  return new Response("invalid_token: the bearer token sent to this MCP server is wrong. " + NO_OAUTH, {
    status: 401,
    headers: { ...TEXT, "www-authenticate": `Bearer realm="textide-mcp", error="invalid_token"` },
  });
}

/**
 * RFC 6750 §3: no `error` when the request had no token, `invalid_token` when it had a wrong one. No
 * `resource_metadata`: there is no authorization server to discover.
 */
function unauthorized(why: "missing" | "wrong"): Response {
  const message =
    why === "missing"
      ? "Unauthorized: no bearer token. Send `Authorization: Bearer <token>` with the token printed when the server started."
      : "Unauthorized: the bearer token is wrong. Use the token printed when the server started (or set with --token / MCP_HTTP_TOKEN), or your own MCP token on a team deployment.";
  const challenge =
    why === "missing"
      ? 'Bearer realm="textide-mcp"'
      : `Bearer realm="textide-mcp", error="invalid_token", error_description="${message.replaceAll("`", "'")}"`;
  return jsonRpcError(401, -32000, message, { "www-authenticate": challenge });
}

/**
 * 2025-11-25 GET: the server sends nothing outside a request's own stream (progress and results go
 * on the POST's stream; the lists never change), so it offers no standalone SSE stream, which the
 * spec answers with 405. Clients treat that as "no stream", where a 400 or 409 is an error to them.
 */
function noStandaloneStream(): Response {
  return jsonRpcError(405, -32000, "Method Not Allowed: this server offers no standalone SSE stream; use POST.", {
    allow: "POST, DELETE",
  });
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
