import type { TeamAuthConfig } from "../config.js";
import type { WebAuditLog } from "./audit.js";
import { createAuth, type Auth } from "./auth.js";
import type { UserToken } from "./user-token.js";
import { loadUsersFile } from "./users.js";

export interface TeamAuth {
  auth: Auth;
  /** Users' own MCP tokens (SHA-256) for the MCP HTTP child. */
  mcpUserTokens: UserToken[];
  /** One line for the start-up output: how people sign in here. */
  describe: string;
}

/** Sign-in as configured (the users file is read now, once); undefined in loopback single-user mode. */
export function teamAuth(team: TeamAuthConfig | undefined, audit: WebAuditLog): TeamAuth | undefined {
  if (!team) return undefined;
  const users = team.usersFile === undefined ? undefined : loadUsersFile(team.usersFile);
  const how = [
    users && `${users.size} user(s) from ${team.usersFile}`,
    team.trustedUserHeader && `${team.trustedUserHeader} from ${team.trustedProxies.join(", ")}`,
  ].filter(Boolean);
  return {
    auth: createAuth({ ...team, users, audit }),
    mcpUserTokens: [...(users?.values() ?? [])].flatMap((u) =>
      u.mcpToken ? [{ user: u.name, sha256: u.mcpToken }] : [],
    ),
    describe: `Sign-in required: ${how.join("; ")}`,
  };
}
