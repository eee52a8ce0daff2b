import { existsSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { pickMcpEnv } from "./mcp/server-command.js";

/** The web server's settings, parsed once at start. */
export interface WebConfig {
  /** `NODE_ENV=development`: Next.js compiles pages on demand and serves HMR. */
  readonly dev: boolean;
  readonly projectRoot: string;
  readonly generatedAssets: string;
  readonly host: string;
  readonly port: number;
  /** Bearer token required on `POST /api/open-file` when set. */
  readonly ideToken: string | undefined;
  /** Hostnames accepted in `Host` besides the loopback names (and `host` itself). */
  readonly allowedHosts: readonly string[];
  /** Where threads (`threads.sqlite`) and the exec audit log live. */
  readonly dataDir: string;
  /** Per-tool-call timeout of the agent's MCP calls (`MCP_TIMEOUT_SEC`). */
  readonly toolTimeoutMs: number;
  /** The bundled MCP server's entry point (`TEXTIDE_MCP_SERVER`, default the built apps/mcp-fs-server). */
  readonly mcpServerBin: string;
  /** Tools that need approval in the UI before they run (`TEXTIDE_APPROVE`, comma-separated). */
  readonly approveTools: readonly string[];
  /** The model settings, handed to the agent's `resolveModelConfig` (never read from process.env elsewhere). */
  readonly modelEnv: Readonly<Record<string, string | undefined>>;
  /** LOG_LEVEL for the bundled MCP servers' logs (default "warn"; their tool-call lines are read regardless). */
  readonly mcpLogLevel: string;
  /** Largest file `PUT /api/upload` accepts (`TEXTIDE_UPLOAD_MAX_MB`, default 100 MiB). */
  readonly uploadMaxBytes: number;
  /** The bundled MCP server over Streamable HTTP for external clients; undefined when `MCP_HTTP_PORT=off`. */
  readonly mcpHttp: { readonly host: string; readonly port: number; readonly token: string | undefined } | undefined;
  /** Environment of the bundled MCP server children: the basics (PATH, HOME, …) and the exec settings. */
  readonly mcpEnv: Readonly<Record<string, string>>;
  /** `DATABASE_URL`: threads, checkpoints and their owners in this Postgres database instead of `threads.sqlite`. */
  readonly databaseUrl: string | undefined;
  /** `REDIS_URL`: the instances of a team deployment share events, Stop and approvals through it. */
  readonly redisUrl: string | undefined;
  /** `TEXTIDE_INSTANCE_ID` (default hostname:port): names this instance in Redis and in MCP session ids. */
  readonly instanceId: string;
  /**
   * `TEXTIDE_WATCH=off`: no watcher on this instance; it learns of changes from the other instances (a
   * network disk whose changes this host's kernel does not report). Default on.
   */
  readonly watch: boolean;
  /**
   * Sign-in (issue 16): set when the server listens beyond loopback or a users file / trusted user header is
   * configured; undefined for the loopback single-user mode, where everybody is the user "local".
   */
  readonly team: TeamAuthConfig | undefined;
}

/** Who may use a team deployment and how their sign-in is kept. */
export interface TeamAuthConfig {
  /** `TEXTIDE_USERS_FILE`: users with scrypt-hashed secrets (and hashed MCP tokens). */
  readonly usersFile: string | undefined;
  /** `TEXTIDE_SESSION_SECRET`: the session cookie's HMAC key, the same on every instance. */
  readonly sessionSecret: string;
  /** `TEXTIDE_TRUSTED_USER_HEADER`, e.g. X-Forwarded-User, believed only from `trustedProxies`. */
  readonly trustedUserHeader: string | undefined;
  /** `TEXTIDE_TRUSTED_PROXIES`: comma-separated addresses of the proxies in front of this server. */
  readonly trustedProxies: readonly string[];
}

/** Model variables the agent understands; only these are passed on. */
export const MODEL_ENV_KEYS = [
  "TEXTIDE_MODEL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "OLLAMA_HOST",
] as const;

/** `NAME=` (as a copied .env.example leaves it) means unset: sign-in must not turn on for an empty value. */
function unsetIfEmpty<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === "" ? undefined : v), schema);
}

const envSchema = z.object({
  PROJECT_ROOT: z.string().min(1).optional(),
  GENERATED_ASSETS: z.string().min(1).optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  TEXTIDE_IDE_TOKEN: z.string().min(1).optional(),
  ALLOWED_HOSTS: z.string().optional(),
  TEXTIDE_DATA_DIR: z.string().min(1).optional(),
  MCP_TIMEOUT_SEC: z.coerce.number().positive().default(60),
  TEXTIDE_MCP_SERVER: z.string().min(1).optional(),
  TEXTIDE_APPROVE: z.string().optional(),
  LOG_LEVEL: z.string().min(1).optional(),
  TEXTIDE_UPLOAD_MAX_MB: z.coerce.number().positive().default(100),
  MCP_HTTP_HOST: z.string().min(1).default("127.0.0.1"),
  MCP_HTTP_PORT: z.union([z.literal("off"), z.coerce.number().int().min(0).max(65_535)]).default(3001),
  MCP_HTTP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  NODE_ENV: z.string().optional(),
  DATABASE_URL: unsetIfEmpty(
    z
      .string()
      .regex(
        /^postgres(ql)?:\/\/\S+$/,
        "must be a postgres:// or postgresql:// URL, e.g. postgres://textide@db:5432/textide",
      )
      .refine((url) => URL.canParse(url), "is not a valid URL (percent-encode special characters in the password)")
      .optional(),
  ),
  REDIS_URL: unsetIfEmpty(
    z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
  ),
  TEXTIDE_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1–64 letters, digits, '.', '_', ':' or '-'")
    .optional(),
  TEXTIDE_WATCH: z.enum(["on", "off"]).default("on"),
  TEXTIDE_USERS_FILE: unsetIfEmpty(z.string().optional()),
  TEXTIDE_SESSION_SECRET: unsetIfEmpty(
    z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 48`)").optional(),
  ),
  TEXTIDE_TRUSTED_USER_HEADER: unsetIfEmpty(
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, "must be a header name such as X-Forwarded-User")
      .optional(),
  ),
  TEXTIDE_TRUSTED_PROXIES: z.string().optional(),
});

/** The only reader of `process.env` in apps/web/server. Throws with every invalid variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): WebConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid web server configuration: ${issues}`);
  }
  const e = parsed.data;
  const repo = findRepoRoot();
  const list = (value: string | undefined) =>
    (value ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== "");
  const allowedHosts = list(e.ALLOWED_HOSTS).map((h) => h.toLowerCase());
  const modelEnv: Record<string, string> = {};
  for (const key of MODEL_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined) modelEnv[key] = value;
  }
  return Object.freeze({
    dev: e.NODE_ENV === "development",
    projectRoot: path.resolve(cwd, e.PROJECT_ROOT ?? path.join(repo, "project_root")),
    generatedAssets: path.resolve(cwd, e.GENERATED_ASSETS ?? path.join(repo, "generated_assets")),
    host: e.HOST,
    port: e.PORT,
    ideToken: e.TEXTIDE_IDE_TOKEN,
    allowedHosts: Object.freeze(allowedHosts),
    dataDir: path.resolve(cwd, e.TEXTIDE_DATA_DIR ?? path.join(repo, ".textide")),
    toolTimeoutMs: Math.round(e.MCP_TIMEOUT_SEC * 1000),
    mcpServerBin: path.resolve(cwd, e.TEXTIDE_MCP_SERVER ?? path.join(repo, "apps/mcp-fs-server/dist/index.js")),
    approveTools: Object.freeze(list(e.TEXTIDE_APPROVE)),
    modelEnv: Object.freeze(modelEnv),
    mcpLogLevel: e.LOG_LEVEL ?? "warn",
    uploadMaxBytes: Math.round(e.TEXTIDE_UPLOAD_MAX_MB * 1024 * 1024),
    mcpHttp:
      e.MCP_HTTP_PORT === "off"
        ? undefined
        : Object.freeze({ host: e.MCP_HTTP_HOST, port: e.MCP_HTTP_PORT, token: e.MCP_HTTP_TOKEN }),
    mcpEnv: Object.freeze(pickMcpEnv(env)),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    instanceId: e.TEXTIDE_INSTANCE_ID ?? `${hostname()}:${e.PORT === 0 ? process.pid : e.PORT}`,
    watch: e.TEXTIDE_WATCH === "on",
    team: teamAuth(e, list(e.TEXTIDE_TRUSTED_PROXIES), cwd),
  });
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

/** Team mode's settings, or undefined on loopback with none of them; throws one line saying what to set. */
function teamAuth(e: z.infer<typeof envSchema>, trustedProxies: string[], cwd: string): TeamAuthConfig | undefined {
  const beyondLoopback = !LOOPBACK_HOSTS.has(e.HOST.toLowerCase());
  if (!beyondLoopback && e.TEXTIDE_USERS_FILE === undefined && e.TEXTIDE_TRUSTED_USER_HEADER === undefined) {
    return undefined;
  }
  if (e.TEXTIDE_USERS_FILE === undefined && e.TEXTIDE_TRUSTED_USER_HEADER === undefined) {
    throw new Error(
      `textide refuses to listen on HOST=${e.HOST} without sign-in: set TEXTIDE_USERS_FILE (see docs/DEPLOY.md, "Users and sign-in") or TEXTIDE_TRUSTED_USER_HEADER with TEXTIDE_TRUSTED_PROXIES, and TEXTIDE_SESSION_SECRET — or listen on HOST=127.0.0.1.`,
    );
  }
  if (e.TEXTIDE_SESSION_SECRET === undefined) {
    throw new Error(
      "Sign-in needs TEXTIDE_SESSION_SECRET (at least 32 random characters, the same on every instance), e.g. `openssl rand -base64 48`.",
    );
  }
  if (e.TEXTIDE_TRUSTED_USER_HEADER !== undefined && trustedProxies.length === 0) {
    throw new Error(
      "TEXTIDE_TRUSTED_USER_HEADER is believed only from the proxies in TEXTIDE_TRUSTED_PROXIES (comma-separated addresses); set it.",
    );
  }
  return Object.freeze({
    usersFile: e.TEXTIDE_USERS_FILE === undefined ? undefined : path.resolve(cwd, e.TEXTIDE_USERS_FILE),
    sessionSecret: e.TEXTIDE_SESSION_SECRET,
    trustedUserHeader: e.TEXTIDE_TRUSTED_USER_HEADER,
    trustedProxies: Object.freeze(trustedProxies),
  });
}

/** The repo checkout this module runs from (works from `server/` under tsx and from `dist/server/`). */
function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "project_root")) && existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
