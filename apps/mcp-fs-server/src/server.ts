import { McpServer, type McpServerFactory } from "@modelcontextprotocol/server";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { createLogger, type Logger } from "./log.js";
import { registerRootResources } from "./resources/roots.js";
import type { ToolContext } from "./tools/context.js";
import { registerTools } from "./tools/index.js";
import { createIdeClient, type IdeClient } from "./tools/system/ide-client.js";

export const SERVER_INFO = { name: "textide-mcp-fs-server", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Sandboxed file tools for one workspace. Paths are relative to project_root (e.g. `data/planets.xlsx`); " +
  "paths starting with `generated_assets/` address the folder where generated outputs belong. " +
  "Find files with fs_search_files, explore with fs_list_directory, read with fs_read_file (paged for large files).";

export interface FsServerOptions {
  projectRoot: string;
  assetsRoot: string;
  ideUrl?: string | undefined;
  ideToken?: string | undefined;
  logLevel?: string;
  log?: Logger;
  ide?: IdeClient;
}

/** A configured server: `factory` makes one McpServer per connection (stdio) or request (HTTP). */
export interface FsServer {
  factory: McpServerFactory;
  ctx: ToolContext;
}

/** Resolves the roots (failing fast if missing) and returns the McpServer factory. */
export async function createFsServer(opts: FsServerOptions): Promise<FsServer> {
  const roots = await resolveRoots([
    { name: ROOT.project, path: opts.projectRoot, writable: true },
    { name: ROOT.assets, path: opts.assetsRoot, writable: true },
  ]);
  const ctx: ToolContext = {
    policy: new PathPolicy(roots),
    log: opts.log ?? createLogger(opts.logLevel ?? "info"),
    ide: opts.ide ?? createIdeClient(opts.ideUrl, opts.ideToken),
  };
  const factory: McpServerFactory = () => {
    const server = new McpServer(SERVER_INFO, {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
    });
    registerTools(server, ctx);
    registerRootResources(server, ctx.policy);
    return server;
  };
  return { factory, ctx };
}
