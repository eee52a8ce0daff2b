import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseServersFile, type ServerSpec } from "../mcp/server-config.js";

export const USAGE = `Usage: npm run agent -- [--root DIR] [--assets DIR] [--model ID] [--thread ID] [--json] [--approve TOOL]... [--mcp-config FILE] "request"

  --root DIR         project_root (default: the repo's project_root)       env PROJECT_ROOT
  --assets DIR       generated_assets (default: the repo's)                 env GENERATED_ASSETS
  --model ID         provider:model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1-mini, ollama:llama3.1, offline
                     (default: from ANTHROPIC_API_KEY / OPENAI_API_KEY / OLLAMA_HOST, else the offline planner)  env TEXTIDE_MODEL
  --thread ID        continue a conversation (threads persist in the data dir)
  --json             print one JSON object at the end instead of the event stream
  --approve TOOL     ask before running TOOL (repeatable); answer on the terminal
  --mcp-config FILE  extra MCP servers, Claude Desktop format {"mcpServers": {...}}   env TEXTIDE_MCP_CONFIG`;

export interface CliConfig {
  request: string;
  projectRoot: string;
  assetsRoot: string;
  model: string | undefined;
  threadId: string | undefined;
  json: boolean;
  approve: string[];
  /** The bundled server plus any from --mcp-config. */
  servers: Record<string, ServerSpec>;
  dataDir: string;
  /** `DATABASE_URL`: threads in this Postgres database (as the web server's) instead of `<dataDir>/threads.sqlite`. */
  databaseUrl: string | undefined;
  toolTimeoutMs: number;
  env: Record<string, string | undefined>;
}

export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The only place the CLI reads argv and env. */
export function loadCliConfig(argv: string[], env: NodeJS.ProcessEnv): CliConfig {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        root: { type: "string" },
        assets: { type: "string" },
        model: { type: "string" },
        thread: { type: "string" },
        json: { type: "boolean", default: false },
        approve: { type: "string", multiple: true },
        "mcp-config": { type: "string" },
        help: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) throw new CliUsageError(USAGE);
  const projectRoot = path.resolve(values.root ?? env.PROJECT_ROOT ?? path.join(REPO, "project_root"));
  const assetsRoot = path.resolve(values.assets ?? env.GENERATED_ASSETS ?? path.join(REPO, "generated_assets"));
  const dataDir = path.resolve(env.TEXTIDE_DATA_DIR ?? path.join(REPO, ".textide"));
  const serverBin = env.TEXTIDE_MCP_SERVER ?? path.join(REPO, "apps/mcp-fs-server/dist/index.js");
  if (!existsSync(serverBin))
    throw new CliUsageError(`The bundled MCP server is not built (${serverBin}). Run \`npm run build\` first.`);
  const servers: Record<string, ServerSpec> = {
    textide: {
      command: process.execPath,
      args: [
        serverBin,
        "--root",
        projectRoot,
        "--assets",
        assetsRoot,
        "--audit-log",
        path.join(dataDir, "exec-audit.jsonl"),
      ],
      ...(env.LOG_LEVEL ? { env: { LOG_LEVEL: env.LOG_LEVEL } } : { env: { LOG_LEVEL: "warn" } }),
    },
  };
  const extra = values["mcp-config"] ?? env.TEXTIDE_MCP_CONFIG;
  if (extra) {
    const file = path.resolve(extra);
    for (const [name, spec] of Object.entries(parseServersFile(readFileSync(file, "utf8"), file).mcpServers)) {
      if (name !== "textide") servers[name] = spec;
    }
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl))
    throw new CliUsageError("DATABASE_URL must be a postgres:// or postgresql:// URL.");
  const timeoutSec = Number(env.MCP_TIMEOUT_SEC ?? 60);
  if (!(timeoutSec > 0)) throw new CliUsageError("MCP_TIMEOUT_SEC must be a positive number of seconds.");
  return {
    request: positionals.join(" "),
    projectRoot,
    assetsRoot,
    model: values.model ?? undefined,
    threadId: values.thread ?? undefined,
    json: values.json,
    approve: values.approve ?? [],
    servers,
    dataDir,
    databaseUrl,
    toolTimeoutMs: timeoutSec * 1000,
    env: { ...env },
  };
}
