import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** scrypt cost (16 MiB, about 0.3 s of one core on this busy 2-core machine): what each guess costs an attacker too. */
const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

function scryptAsync(secret: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: N=16384, r=8 needs 16 MiB, just over Node's 32 MiB default when p grows; leave room.
    scrypt(secret, salt, keylen, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` (salt and hash base64url), the form stored in the users file. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, KEY_BYTES, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Parsed `scrypt$N$r$p$salt$hash`, or undefined when the string is not one. */
export function parseSecretHash(
  stored: string,
): { N: number; r: number; p: number; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? "", "base64url");
  const key = Buffer.from(parts[5] ?? "", "base64url");
  if (!N || !r || !p || N > 2 ** 20 || r > 32 || p > 16 || salt.length < 8 || key.length < 16) return undefined;
  return { N, r, p, salt, key };
}

/** A valid hash that no secret matches: unknown users cost the same scrypt run as known ones. */
const DECOY = `scrypt$${COST.N}$${COST.r}$${COST.p}$${randomBytes(16).toString("base64url")}$${randomBytes(KEY_BYTES).toString("base64url")}`;

/** True when `secret` matches `stored` (constant-time); `stored` undefined runs a decoy check and is false. */
export async function verifySecret(secret: string, stored: string | undefined): Promise<boolean> {
  const parsed = parseSecretHash(stored ?? DECOY) ?? parseSecretHash(DECOY);
  if (!parsed) return false;
  const key = await scryptAsync(secret, parsed.salt, parsed.key.length, { N: parsed.N, r: parsed.r, p: parsed.p });
  return timingSafeEqual(key, parsed.key) && stored !== undefined;
}

/** The users file keeps the SHA-256 (hex) of each MCP token, never the token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A fresh MCP bearer token (192 bits, base64url). */
export function newToken(): string {
  return randomBytes(24).toString("base64url");
}
