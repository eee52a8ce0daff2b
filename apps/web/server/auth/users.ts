import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseSecretHash } from "./secrets.js";

/** A user name: what the audit log, thread owners and the UI show. */
export const USER_NAME = /^[A-Za-z0-9][\w.@-]{0,63}$/;

const userSchema = z.object({
  name: z
    .string()
    .regex(USER_NAME, "names are 1–64 letters, digits, '.', '_', '-' or '@', starting with a letter or digit"),
  secret: z.string().refine((s) => parseSecretHash(s) !== undefined, {
    message:
      "must be a scrypt hash (scrypt$N$r$p$salt$hash); make one with `node apps/web/dist/server/auth/cli.js add NAME`",
  }),
  mcpToken: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "must be the SHA-256 (64 hex digits) of the user's MCP token, as the CLI prints it")
    .optional(),
});

const fileSchema = z.object({ users: z.array(userSchema) });

export type UserEntry = z.infer<typeof userSchema>;

/** The users file, read once at start: name → entry. Throws with the file and every problem named. */
export function loadUsersFile(file: string): ReadonlyMap<string, UserEntry> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`TEXTIDE_USERS_FILE (${file}) could not be read as JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`TEXTIDE_USERS_FILE (${file}) is not a valid users file: ${issues}`);
  }
  const users = new Map<string, UserEntry>();
  for (const u of parsed.data.users) {
    if (users.has(u.name)) throw new Error(`TEXTIDE_USERS_FILE (${file}) names the user ${u.name} twice.`);
    users.set(u.name, u);
  }
  return users;
}
