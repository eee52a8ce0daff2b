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
      const { root, candidate } = ctx.policy.locate(args.path);
      if (candidate === root.real) {
        const display = ctx.policy.display(root, candidate);
        return { structured: { root: root.name, path: display, created: false }, text: `${display}/ already exists.` };
      }
      return ctx.policy.withParent(args.path, "create-dir", { createParents: true }, async (dir) => {
        if (dir.stats && !dir.stats.isDirectory()) {
          throw new FsError("exists", `${dir.display} exists and is a file (or a link); choose another folder name.`);
        }
        let created = false;
        if (!dir.stats) {
          created = await mkdir(dir.at).then(
            () => true,
            (err: unknown) => {
              // Made meanwhile by someone else: the folder is there, as asked.
              if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
              throw fromNodeError(err, dir.display);
            },
          );
        }
        return {
          structured: { root: dir.root.name, path: dir.display, created },
          text: created ? `Created ${dir.display}/.` : `${dir.display}/ already exists.`,
        };
      });
    },
  );
}
