import type { McpServer } from "@modelcontextprotocol/server";
import { openFileInput, openFileOutput, TOOL } from "@textide/shared";
import { FsError } from "@textide/shared/node";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";

export function registerOpenFile(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.openFile,
    {
      title: "Open file in the IDE",
      description:
        "Open and focus a workspace file in every browser window of the running textide IDE (editor, " +
        "image, table or chart viewer by type); `line` reveals a line in text files. Use it to show the " +
        "user a file you found or made. Errors: not_found, is_directory, unavailable (no IDE is " +
        "running: just tell the user the path).",
      input: openFileInput,
      output: openFileOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const file = await ctx.policy.resolveExisting(args.path);
      if (file.stats.isDirectory())
        throw new FsError("is_directory", `${file.display} is a folder; open a file inside it.`);
      const clients = await ctx.ide.openFile(file.display, args.line);
      return {
        structured: { path: file.display, root: file.root.name, clients },
        text: `Asked ${clients} IDE window${clients === 1 ? "" : "s"} to open ${file.display}.`,
      };
    },
  );
}
