import { mkdir } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import { createDirectoryInput, createDirectoryOutput, TOOL } from "@textide/shared";
import { FsError, fromNodeError } from "@textide/shared/node";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";

export function registerCreateDirectory(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.createDirectory,
    {
      title: "Create directory",
      description:
        "Create a folder, including missing parents. Succeeds without change if it already exists " +
        "(`created: false`). Errors: exists (a file has that name), outside_root.",
      input: createDirectoryInput,
      output: createDirectoryOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (args) => {
      const dir = await ctx.policy.resolve(args.path, "create-dir");
      if (dir.stats && !dir.stats.isDirectory()) {
        throw new FsError("exists", `${dir.display} exists and is a file; choose another folder name.`);
      }
      if (!dir.stats) {
        await mkdir(dir.abs, { recursive: true }).catch((err: unknown) => {
          throw fromNodeError(err, dir.display);
        });
      }
      return {
        structured: { root: dir.root.name, path: dir.display, created: !dir.stats },
        text: dir.stats ? `${dir.display}/ already exists.` : `Created ${dir.display}/.`,
      };
    },
  );
}
