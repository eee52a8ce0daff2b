import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FailedSignIns } from "../server/auth/rate-limit.js";
import { hashSecret, hashToken, parseSecretHash, verifySecret } from "../server/auth/secrets.js";
import { readCookie, SESSION_TTL_MS, sessionCookie, signSession, verifySession } from "../server/auth/session.js";
import { loadUsersFile } from "../server/auth/users.js";

const KEY = "a-session-secret-of-at-least-32-characters";

describe("secrets", () => {
  it("verifies the secret a hash was made from and nothing else, also for a missing or malformed hash", async () => {
    const stored = await hashSecret("correct horse");
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifySecret("correct horse", stored)).toBe(true);
    expect(await verifySecret("correct horsE", stored)).toBe(false);
    expect(await verifySecret("correct horse", undefined)).toBe(false);
    expect(await verifySecret("correct horse", "scrypt$1$1$1$x$y")).toBe(false);
    // Two hashes of one secret differ (their salts do).
    expect(await hashSecret("correct horse")).not.toBe(stored);
  });

  it("refuses hashes whose cost would make a sign-in a denial of service", () => {
    expect(parseSecretHash("scrypt$16384$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5")).toBeDefined();
    expect(parseSecretHash("scrypt$4194304$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5")).toBeUndefined();
    expect(parseSecretHash("bcrypt$…")).toBeUndefined();
  });

  it("keeps MCP tokens as SHA-256 hex", () => {
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("session cookie", () => {
  it("carries the user until its signed expiry, and nothing survives a changed byte or another key", () => {
    const now = 1_700_000_000_000;
    const value = signSession(KEY, "ada", now);
    expect(verifySession(KEY, value, now + 1000)).toBe("ada");
    expect(verifySession(KEY, value, now + SESSION_TTL_MS)).toBeUndefined();
    expect(verifySession("another-key-of-at-least-32-characters!", value, now)).toBeUndefined();
    const [body, mac] = value.split(".") as [string, string];
    const other = Buffer.from(JSON.stringify({ u: "bob", exp: now + SESSION_TTL_MS })).toString("base64url");
    expect(verifySession(KEY, `${other}.${mac}`, now)).toBeUndefined();
    expect(verifySession(KEY, `${body}.`, now)).toBeUndefined();
    expect(verifySession(KEY, body, now)).toBeUndefined();
  });

  it("reads one cookie among others and writes HttpOnly, SameSite=Lax, Path=/ (Secure on request)", () => {
    expect(readCookie("a=1; textide_session=v.m; b=2", "textide_session")).toBe("v.m");
    expect(readCookie(undefined, "textide_session")).toBeUndefined();
    expect(sessionCookie("v", false)).toBe(
      `textide_session=v; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax; Path=/`,
    );
    expect(sessionCookie(undefined, true)).toBe("textide_session=; Max-Age=0; HttpOnly; SameSite=Lax; Path=/; Secure");
  });
});

describe("failed sign-ins", () => {
  it("locks a key after max failures until the oldest leaves the window; success forgets them", () => {
    const limit = new FailedSignIns(3, 60_000);
    for (let t = 0; t < 3; t++) {
      expect(limit.retryAfterMs("k", t * 1000)).toBe(0);
      limit.fail("k", t * 1000);
    }
    expect(limit.retryAfterMs("k", 3000)).toBe(57_000);
    expect(limit.retryAfterMs("other", 3000)).toBe(0);
    expect(limit.retryAfterMs("k", 60_001)).toBe(0);
    limit.fail("k", 61_000);
    limit.succeed("k");
    expect(limit.retryAfterMs("k", 61_000)).toBe(0);
  });
});

describe("users file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "textide-users-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const load = async (text: string) => {
    const file = path.join(dir, `${Math.random()}.json`);
    await writeFile(file, text);
    return () => loadUsersFile(file);
  };

  it("loads users and names every problem with the file", async () => {
    const secret = await hashSecret("s3cret-s3cret");
    const users = (await load(JSON.stringify({ users: [{ name: "ada", secret, mcpToken: hashToken("t") }] })))();
    expect([...users.keys()]).toEqual(["ada"]);
    expect(await load("{")).toThrow(/could not be read as JSON/);
    expect(await load(JSON.stringify({ users: [{ name: "ada", secret: "plain" }] }))).toThrow(/scrypt hash/);
    expect(await load(JSON.stringify({ users: [{ name: "a b", secret }] }))).toThrow(/names are/);
    expect(await load(JSON.stringify({ users: [{ name: "ada", secret, mcpToken: "t" }] }))).toThrow(/SHA-256/);
    expect(
      await load(
        JSON.stringify({
          users: [
            { name: "ada", secret },
            { name: "ada", secret },
          ],
        }),
      ),
    ).toThrow(/twice/);
  });
});
