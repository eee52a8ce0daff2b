import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearerIdentity, callerUser, userAuthInfo } from "./bearer-auth.js";

const sha = (t: string): string => createHash("sha256").update(t).digest("hex");
const SHARED = "shared-token-of-24-characters";
const USERS = [
  { user: "ada", sha256: sha("ada-token-0123456789") },
  { user: "bob", sha256: sha("bob-token-0123456789") },
];

describe("bearerIdentity", () => {
  it("tells the shared token, each user's token, a missing and a wrong one apart", () => {
    expect(bearerIdentity(`Bearer ${SHARED}`, SHARED, USERS)).toEqual({ ok: true, user: undefined });
    expect(bearerIdentity("Bearer ada-token-0123456789", SHARED, USERS)).toEqual({ ok: true, user: "ada" });
    expect(bearerIdentity("bearer  bob-token-0123456789 ", SHARED, USERS)).toEqual({ ok: true, user: "bob" });
    expect(bearerIdentity(null, SHARED, USERS)).toEqual({ ok: false, why: "missing" });
    expect(bearerIdentity("Basic abc", SHARED, USERS)).toEqual({ ok: false, why: "missing" });
    expect(bearerIdentity("Bearer ada-token-012345678", SHARED, USERS)).toEqual({ ok: false, why: "wrong" });
    // A stored hash is not itself a token.
    expect(bearerIdentity(`Bearer ${USERS[0]!.sha256}`, SHARED, USERS)).toEqual({ ok: false, why: "wrong" });
  });

  it("carries the user to tool handlers as authInfo.clientId", () => {
    expect(callerUser({ http: { authInfo: userAuthInfo("ada") } })).toBe("ada");
    expect(callerUser({})).toBeUndefined();
  });
});
