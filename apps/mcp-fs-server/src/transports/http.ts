import { randomUUID, timingSafeEqual } from "node:crypto";
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

export interface HttpHandlerOptions {
  /** Required bearer token; undefined disables the check (loopback-only, see config). */
  token: string | undefined;
  /** Hostnames accepted in Host and Origin besides the loopback names. */
  allowedHosts: string[];
  /** A 2025-11-25 session idle for longer than this is closed. */
  sessionIdleMs: number;
  path?: string;
}

export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  /** Open 2025-11-25 sessions (for tests and logs). */
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer | { close(): Promise<void> };
  lastSeen: number;
}

/**
 * Streamable HTTP for both protocol revisions on one endpoint: 2026-07-28 requests go to the
 * SDK's stateless per-request handler; 2025-11-25 traffic gets sessionful transports keyed by
 * `Mcp-Session-Id` (unknown ids: 404; idle ones reaped). Host, Origin and bearer token are
 * checked before anything else.
 */
export function createHttpHandler(fs: FsServer, opts: HttpHandlerOptions): HttpHandler {
  const endpoint = opts.path ?? "/mcp";
  const allowed = [...localhostAllowedHostnames(), ...opts.allowedHosts];
  const sessions = new Map<string, Session>();
  const log = fs.ctx.log;
  const modern = createMcpHandler(fs.factory, {
    legacy: "reject",
    onerror: (err) => log.debug({ err: err.message }, "modern request rejected"),
  });

  const reaper = setInterval(() => reapIdle(), Math.min(opts.sessionIdleMs / 2, 60_000));
  reaper.unref();

  function reapIdle(now = Date.now()): void {
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > opts.sessionIdleMs) {
        sessions.delete(id);
        void s.transport.close();
        void s.server.close();
        log.info({ sessionId: id }, "idle MCP session closed");
      }
    }
  }

  async function legacy(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session)
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it expired or never existed. Start a new session with initialize.",
        );
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required.");
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now() });
        log.info({ sessionId: id }, "MCP session opened");
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        log.info({ sessionId: id }, "MCP session closed");
      },
    });
    const server = await fs.factory({ era: "legacy", requestInfo: request });
    await server.connect(transport);
    // A POST without a session that is not `initialize` is answered 400 by the transport itself.
    return transport.handleRequest(request);
  }

  return {
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== endpoint) return new Response("Not found. The MCP endpoint is " + endpoint, { status: 404 });
      const host = validateHostHeader(request.headers.get("host"), allowed);
      if (!host.ok)
        return jsonRpcError(403, -32000, `Forbidden: Host header not allowed (${host.message ?? "invalid"}).`);
      const origin = validateOriginHeader(request.headers.get("origin"), allowed);
      if (!origin.ok) return jsonRpcError(403, -32000, "Forbidden: Origin not allowed.");
      if (opts.token !== undefined && !bearerMatches(request.headers.get("authorization"), opts.token)) {
        return jsonRpcError(
          401,
          -32000,
          "Unauthorized: send `Authorization: Bearer <token>` (printed when the server started).",
          {
            "www-authenticate": 'Bearer realm="textide-mcp"',
          },
        );
      }
      try {
        return (await isLegacyRequest(request)) ? await legacy(request) : await modern.fetch(request);
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

function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
