import { call } from "./api";

/** `GET /api/auth/me`: who is signed in; `team` false on a single-user (loopback) server. */
export interface Me {
  user: string;
  team: boolean;
  /** Whether signing out means anything (false when a proxy signs people in, or single-user). */
  signOut: boolean;
}

export function fetchMe(): Promise<Me> {
  return call<Me>("/api/auth/me");
}

export async function signIn(name: string, secret: string): Promise<void> {
  await call("/api/auth/sign-in", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, secret }),
  });
}

export async function signOut(): Promise<void> {
  await call("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
}
