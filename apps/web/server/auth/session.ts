import { createHmac, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "textide_session";
/** How long a sign-in lasts; the expiry is inside the signed value, so no server keeps sessions. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

interface SessionPayload {
  /** User name. */
  u: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

function mac(secret: string, body: string): Buffer {
  return createHmac("sha256", secret).update(body).digest();
}

/** `<base64url(JSON {u, exp})>.<base64url(HMAC-SHA256)>`: the same secret on every instance verifies it. */
export function signSession(secret: string, user: string, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ u: user, exp: now + SESSION_TTL_MS } satisfies SessionPayload)).toString(
    "base64url",
  );
  return `${body}.${mac(secret, body).toString("base64url")}`;
}

/** The user of a cookie value whose signature holds and which has not expired; undefined otherwise. */
export function verifySession(secret: string, value: string, now = Date.now()): string | undefined {
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  const body = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), "base64url");
  const expected = mac(secret, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let payload: Partial<SessionPayload>;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Partial<SessionPayload>;
  } catch {
    return undefined;
  }
  if (typeof payload.u !== "string" || typeof payload.exp !== "number" || payload.exp <= now) return undefined;
  return payload.u;
}

/** One cookie's value from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for a session (`value`) or for removing it (undefined). */
export function sessionCookie(value: string | undefined, secure: boolean): string {
  const attrs = ["HttpOnly", "SameSite=Lax", "Path=/", ...(secure ? ["Secure"] : [])];
  return value === undefined
    ? [`${SESSION_COOKIE}=`, "Max-Age=0", ...attrs].join("; ")
    : [`${SESSION_COOKIE}=${value}`, `Max-Age=${SESSION_TTL_MS / 1000}`, ...attrs].join("; ");
}
