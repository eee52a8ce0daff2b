/**
 * Makes a users-file entry: `npm run user -- add NAME [--secret-stdin]`. Prints the
 * JSON line to add to TEXTIDE_USERS_FILE's "users" list (scrypt-hashed secret, SHA-256 of the MCP token)
 * and, once, the secret and MCP token themselves to hand to the user. Nothing is written anywhere.
 */
import { readFileSync } from "node:fs";
import { hashSecret, hashToken, newToken } from "./secrets.js";
import { USER_NAME } from "./users.js";

const USAGE = `Usage: npm run user -- add NAME [--secret-stdin]

  add NAME        a users-file entry for NAME with a fresh sign-in secret and MCP token
  --secret-stdin  take the sign-in secret from standard input (first line) instead of generating one`;

async function main(args: string[]): Promise<number> {
  const [command, name, ...rest] = args;
  if (command !== "add" || name === undefined || rest.some((a) => a !== "--secret-stdin")) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!USER_NAME.test(name)) {
    process.stderr.write(`"${name}" is not a valid user name: use 1–64 letters, digits, '.', '_', '-' or '@'.\n`);
    return 2;
  }
  const fromStdin = rest.includes("--secret-stdin");
  const secret = fromStdin ? (readFileSync(0, "utf8").split(/\r?\n/, 1)[0] ?? "") : newToken();
  if (secret.length < 12) {
    process.stderr.write("The sign-in secret must be at least 12 characters.\n");
    return 2;
  }
  const mcpToken = newToken();
  const entry = { name, secret: await hashSecret(secret), mcpToken: hashToken(mcpToken) };
  process.stdout.write(
    [
      `Add this entry to the "users" list of your TEXTIDE_USERS_FILE, then restart textide:`,
      `  ${JSON.stringify(entry)}`,
      "",
      `Give ${name}, privately (they are not stored anywhere):`,
      ...(fromStdin ? [] : [`  sign-in secret: ${secret}`]),
      `  MCP token:      ${mcpToken}   (Authorization: Bearer <token> on the MCP endpoint)`,
      "",
    ].join("\n"),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
