import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthInfo } from "@modelcontextprotocol/server";

/** A user's own bearer token, known here only by its SHA-256 (hex), as the web server's users file keeps it. */
export interface UserToken {
  user: string;
  sha256: string;
}

/** Who a bearer token is: the shared token (no user), a user's own token, missing or wrong. */
export type BearerIdentity = { ok: true; user: string | undefined } | { ok: false; why: "missing" | "wrong" };

/**
 * Checks `Authorization: Bearer …` against the shared token and every user's token hash, each in constant
 * time (the hash of what was sent is compared with every stored hash, so the time says nothing about which
 * user, if any, matched).
 */
export function bearerIdentity(
  header: string | null,
  token: string | undefined,
  users: readonly UserToken[],
): BearerIdentity {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!match?.[1]) return { ok: false, why: "missing" };
  const sent = match[1].trim();
  if (token !== undefined && sameBytes(Buffer.from(sent), Buffer.from(token))) return { ok: true, user: undefined };
  const digest = createHash("sha256").update(sent).digest();
  let found: string | undefined;
  for (const u of users) if (sameBytes(digest, Buffer.from(u.sha256, "hex")) && found === undefined) found = u.user;
  return found === undefined ? { ok: false, why: "wrong" } : { ok: true, user: found };
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What tool handlers see as `ctx.http.authInfo`: the user's name as the client id. */
export function userAuthInfo(user: string): AuthInfo {
  return { token: "", clientId: user, scopes: [] };
}

/** The user a tool call was made for (through a user's own MCP token), or undefined. */
export function callerUser(req: { http?: { authInfo?: AuthInfo } }): string | undefined {
  const id = req.http?.authInfo?.clientId;
  return id === undefined || id === "" ? undefined : id;
}
