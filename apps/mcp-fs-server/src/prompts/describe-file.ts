import { completable, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ToolContext } from "../tools/context.js";
import { checkedFilePath } from "./check-file.js";
import { completePaths, isTable } from "./complete-paths.js";

export const DESCRIBE_FILE = "describe-file";

export function registerDescribeFile(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    DESCRIBE_FILE,
    {
      title: "Describe a file",
      description: "What a workspace file is and what is in it: structure, size, notable content.",
      argsSchema: z.object({
        path: completable(z.string().min(1).describe("Workspace path, e.g. data/planets.xlsx"), (typed) =>
          completePaths(ctx.policy, typed ?? ""),
        ),
      }),
    },
    async ({ path }) => {
      const shown = await checkedFilePath(ctx.policy, path);
      const table = isTable(shown);
      const steps = [
        `Describe the file \`${shown}\` in this workspace: what it is, how it is structured and what is notable in it.`,
        "Start with fs_get_file_info (type, size, MIME), then read it with fs_read_file; page through a large file with offset instead of reading all of it.",
        table && ctx.exec
          ? "It is a table: with exec_run_js and readTable, give the columns with their types, the row count, and ranges or the most common values of the main columns."
          : "",
        "Keep it short: a one-line summary, then the structure, then anything odd (empty parts, inconsistent rows, encoding problems).",
      ].filter(Boolean);
      return {
        description: `Describe ${shown}`,
        messages: [{ role: "user", content: { type: "text", text: steps.join("\n") } }],
      };
    },
  );
}
