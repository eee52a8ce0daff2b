import type { McpServer } from "@modelcontextprotocol/server";
import type { ToolContext } from "../tools/context.js";
import { registerChartTable } from "./chart-table.js";
import { registerDescribeFile } from "./describe-file.js";
import { registerFindFiles } from "./find-files.js";

/** Prompts that clients offer as commands (slash commands, prompt pickers). */
export function registerPrompts(server: McpServer, ctx: ToolContext): void {
  registerDescribeFile(server, ctx);
  if (ctx.exec) registerChartTable(server, ctx);
  registerFindFiles(server);
}
