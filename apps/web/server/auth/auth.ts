import { isIP } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { AppError } from "../errors.js";
import { readJsonBody, sendJson } from "../http/respond.js";
import type { WebAuditLog } from "./audit.js";
import { FailedSignIns } from "./rate-limit.js";
import { verifySecret } from "./secrets.js";
import { readCookie, SESSION_COOKIE, sessionCookie, signSession, verifySession } from "./session.js";
import { USER_NAME, type UserEntry } from "./users.js";

/** The one user of a loopback single-user server (and the owner of its threads). */
export const LOCAL_USER = "local";

export interface AuthSettings {
  /** Users who sign in with a name and secret (TEXTIDE_USERS_FILE). */
  users: ReadonlyMap<string, UserEntry> | undefined;
  /** HMAC key of the session cookie (TEXTIDE_SESSION_SECRET), the same on every instance. */
  sessionSecret: string;
  /** A header naming the user, set by an authenticating proxy (TEXTIDE_TRUSTED_USER_HEADER). */
  trustedUserHeader: string | undefined;
  /** Addresses whose forwarded headers are believed (TEXTIDE_TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  audit: WebAuditLog;
}

/** Sign-in for a team deployment. A server without one (loopback, single user) serves everybody as "local". */
export interface Auth {
  /** The signed-in user of a request (valid session cookie or trusted proxy header), or undefined. */
  identify(req: IncomingMessage): string | undefined;
  /** Like identify, but a 401 for nobody; remembers the user for {@link userOf}. */
  require(req: IncomingMessage): string;
  signIn(req: IncomingMessage, res: ServerResponse): Promise<void>;
  signOut(req: IncomingMessage, res: ServerResponse): Promise<void>;
  me(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const requestUsers = new WeakMap<IncomingMessage, string>();

/** Marks `req` as made by `user` (the server's request gate does this before any handler runs). */
export function rememberUser(req: IncomingMessage, user: string): void {
  requestUsers.set(req, user);
}

/** The user a request handler acts for; a handler reached without the gate is a bug, not "local". */
export function userOf(req: IncomingMessage): string {
  const user = requestUsers.get(req);
  if (user === undefined) throw new Error("userOf: the request did not pass the sign-in gate");
  return user;
}

const signInBody = z.object({ name: z.string().min(1).max(64), secret: z.string().min(1).max(1024) });

export const SIGN_IN_NEEDED =
  "Sign in first: this textide server is shared by a team and needs to know who you are. Open /sign-in in your browser.";

/** `::ffff:10.0.0.1` → `10.0.0.1`. */
function plainAddress(address: string | undefined): string {
  const a = address ?? "";
  return a.startsWith("::ffff:") && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function createAuth(s: AuthSettings): Auth {
  const proxies = new Set(s.trustedProxies.map(plainAddress));
  const fromProxy = (req: IncomingMessage): boolean => proxies.has(plainAddress(req.socket.remoteAddress));
  const failures = new FailedSignIns();
  // Guessing many names from one address: each guess costs an scrypt run here, so the address is limited too.
  const addressFailures = new FailedSignIns(30);
  /** Rate-limited refusals already in the audit log (once per lock-out, not once per request). */
  const reportedUntil = new Map<string, number>();

  /** The client's address: the proxy's last X-Forwarded-For hop when the peer is a trusted proxy. */
  const addressOf = (req: IncomingMessage): string => {
    const peer = plainAddress(req.socket.remoteAddress);
    if (!fromProxy(req)) return peer;
    const hops = (header(req, "x-forwarded-for") ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    return plainAddress(hops.at(-1) ?? peer);
  };
  const secure = (req: IncomingMessage): boolean =>
    fromProxy(req) && header(req, "x-forwarded-proto")?.split(",")[0]?.trim() === "https";

  const identify = (req: IncomingMessage): string | undefined => {
    if (s.trustedUserHeader !== undefined && fromProxy(req)) {
      const named = header(req, s.trustedUserHeader)?.trim();
      if (named && USER_NAME.test(named)) return named;
    }
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    const user = cookie === undefined ? undefined : verifySession(s.sessionSecret, cookie);
    // Cookies are made only for users of the file: one removed from it is out at the next restart.
    if (user !== undefined && s.users && !s.users.has(user)) return undefined;
    return user;
  };

  return {
    identify,
    require(req) {
      const user = identify(req);
      if (user === undefined) {
        throw new AppError(401, "unauthorized", SIGN_IN_NEEDED, {
          surface: "api",
          headers: { "www-authenticate": 'Cookie realm="textide"' },
        });
      }
      rememberUser(req, user);
      return user;
    },

    async signIn(req, res) {
      if (!s.users) {
        throw new AppError(
          400,
          "bad_request",
          `Signing in with a name and secret is off here: your proxy signs you in (${s.trustedUserHeader ?? "no header"}).`,
          { surface: "api" },
        );
      }
      const parsed = signInBody.safeParse(await readJsonBody(req, 8 * 1024));
      if (!parsed.success) {
        throw new AppError(400, "bad_request", 'Send your user name and secret as JSON: {"name": …, "secret": …}.', {
          surface: "api",
        });
      }
      const { name, secret } = parsed.data;
      const address = addressOf(req);
      const key = `${name}\n${address}`;
      const userWait = failures.retryAfterMs(key);
      const waitMs = Math.max(userWait, addressFailures.retryAfterMs(address));
      if (waitMs > 0) {
        const now = Date.now();
        if ((reportedUntil.get(key) ?? 0) <= now) {
          s.audit.record({ kind: "sign-in-failed", user: name, address, reason: "rate-limited" });
          reportedUntil.set(key, now + waitMs);
          for (const [k, until] of reportedUntil) if (until <= now) reportedUntil.delete(k);
        }
        const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
        const who = userWait > 0 ? `for ${name} from your address` : "from your address";
        throw new AppError(
          429,
          "denied",
          `Too many failed sign-ins ${who}. Try again in ${minutes} minute${minutes > 1 ? "s" : ""}.`,
          { surface: "api", headers: { "retry-after": String(Math.ceil(waitMs / 1000)) } },
        );
      }
      if (!(await verifySecret(secret, s.users.get(name)?.secret))) {
        failures.fail(key);
        addressFailures.fail(address);
        s.audit.record({ kind: "sign-in-failed", user: name, address, reason: "wrong" });
        throw new AppError(401, "unauthorized", "That user name and secret do not match. Check both and try again.", {
          surface: "api",
        });
      }
      failures.succeed(key);
      s.audit.record({ kind: "sign-in", user: name, address });
      sendJson(
        res,
        200,
        { user: name, team: true },
        {
          "set-cookie": sessionCookie(signSession(s.sessionSecret, name), secure(req)),
        },
      );
    },

    async signOut(req, res) {
      await Promise.resolve();
      const user = identify(req);
      if (user !== undefined) s.audit.record({ kind: "sign-out", user, address: addressOf(req) });
      sendJson(res, 200, { user: null }, { "set-cookie": sessionCookie(undefined, secure(req)) });
    },

    async me(req, res) {
      await Promise.resolve();
      const user = identify(req);
      if (user === undefined) throw new AppError(401, "unauthorized", SIGN_IN_NEEDED, { surface: "api" });
      sendJson(res, 200, { user, team: true, signOut: s.users !== undefined });
    },
  };
}

/** `GET /api/auth/me` on a single-user server: everybody is "local", with nothing to sign out of. */
export async function localMe(res: ServerResponse): Promise<void> {
  await Promise.resolve();
  sendJson(res, 200, { user: LOCAL_USER, team: false, signOut: false });
}

/** Sign-in and sign-out on a single-user server. */
export async function noSignIn(): Promise<never> {
  await Promise.resolve();
  throw new AppError(
    404,
    "not_found",
    "This textide server runs for one person on this machine (loopback), so there is no sign-in.",
    { surface: "api" },
  );
}
