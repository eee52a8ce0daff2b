import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The web server's settings, parsed once at start. */
export interface WebConfig {
  readonly projectRoot: string;
  readonly generatedAssets: string;
  readonly host: string;
  readonly port: number;
  /** Bearer token required on `POST /api/open-file` when set. */
  readonly ideToken: string | undefined;
  /** Hostnames accepted in `Host` besides the loopback names (and `host` itself). */
  readonly allowedHosts: readonly string[];
}

const envSchema = z.object({
  PROJECT_ROOT: z.string().min(1).optional(),
  GENERATED_ASSETS: z.string().min(1).optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  TEXTIDE_IDE_TOKEN: z.string().min(1).optional(),
  ALLOWED_HOSTS: z.string().optional(),
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
  const allowedHosts = (e.ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  return Object.freeze({
    projectRoot: path.resolve(cwd, e.PROJECT_ROOT ?? path.join(repo, "project_root")),
    generatedAssets: path.resolve(cwd, e.GENERATED_ASSETS ?? path.join(repo, "generated_assets")),
    host: e.HOST,
    port: e.PORT,
    ideToken: e.TEXTIDE_IDE_TOKEN,
    allowedHosts: Object.freeze(allowedHosts),
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
