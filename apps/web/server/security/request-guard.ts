import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { AppError } from "../errors.js";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** Hostnames a `Host` header may name: loopback, the bound host (unless a wildcard) and configured extras. */
export function allowedHostnames(bindHost: string, extra: readonly string[]): Set<string> {
  const names = new Set([...LOOPBACK, ...extra.map((h) => h.toLowerCase())]);
  const host = bindHost.toLowerCase();
  if (host !== "0.0.0.0" && host !== "::") names.add(host.includes(":") ? `[${host}]` : host);
  return names;
}

/** `hostname` part of a Host header (`[::1]:3000` → `[::1]`), lower-cased; undefined when malformed. */
function hostnameOf(hostHeader: string): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(hostHeader.trim());
  return m?.[1]?.toLowerCase();
}

/**
 * The request target must be a path (origin-form). An absolute-form target (`GET http://elsewhere/x`)
 * is for proxies; Next.js answered it with a redirect to that host. Checked before Host and Origin.
 */
export function checkRequestTarget(req: IncomingMessage): void {
  const target = req.url ?? "";
  if (!target.startsWith("/") || target.startsWith("//")) {
    throw new AppError(400, "bad_request", "Bad request: the request target must be a path such as /api/health.", {
      surface: "api",
    });
  }
}

/**
 * DNS-rebinding defence: the `Host` header must name this server, and a browser `Origin`, when
 * present, must be this server's own origin. Throws a 403 AppError otherwise.
 */
export function checkHostAndOrigin(req: IncomingMessage, allowed: Set<string>, checkOrigin: boolean): void {
  const host = req.headers.host;
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (host === undefined || hostname === undefined || !allowed.has(hostname)) {
    throw new AppError(403, "forbidden", "Forbidden: Host header not allowed.", { surface: "api" });
  }
  if (!checkOrigin) return;
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, host)) {
    throw new AppError(403, "forbidden", "Forbidden: cross-origin requests may not change files.", {
      surface: "api",
    });
  }
}

/** True when `origin` is `http(s)://<host>` for the request's own (already validated) Host. */
export function isOwnOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return url.host.toLowerCase() === host.trim().toLowerCase();
}

/** Throws 401 unless `Authorization: Bearer <token>` matches (constant-time). */
export function checkBearer(req: IncomingMessage, token: string): void {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  const given = Buffer.from(m?.[1]?.trim() ?? "");
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError(401, "unauthorized", "Unauthorized: send `Authorization: Bearer <TEXTIDE_IDE_TOKEN>`.", {
      surface: "api",
      headers: { "www-authenticate": 'Bearer realm="textide-ide"' },
    });
  }
}
