import { cp, link, mkdir, rename, rm, unlink } from "node:fs/promises";
import path from "node:path";
import type { McpServer } from "@modelcontextprotocol/server";
import { moveFileInput, moveFileOutput, TOOL } from "@textide/shared";
import { FsError, fromNodeError, isInside } from "@textide/shared/node";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";

export function registerMoveFile(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.moveFile,
    {
      title: "Move or rename",
      description:
        "Move or rename a file or folder within the workspace roots (also between project_root and " +
        "generated_assets). Missing destination folders are created. Fails with `exists` if the " +
        "destination exists unless overwrite is true (files only; a folder is never replaced). " +
        "Errors: not_found, exists, outside_root, invalid_path (moving a folder into itself).",
      input: moveFileInput,
      output: moveFileOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    async (args) => {
      const src = await ctx.policy.resolve(args.source, "write");
      if (!src.stats) throw new FsError("not_found", `${src.display} does not exist.`);
      const dst = await ctx.policy.resolve(args.destination, "write");
      if (src.stats.isDirectory() && isInside(src.abs, dst.abs)) {
        throw new FsError("invalid_path", `Cannot move ${src.display} into itself (${dst.display}).`);
      }
      if (dst.stats && (dst.stats.isDirectory() || !args.overwrite)) {
        throw new FsError(
          "exists",
          `${dst.display} already exists.${dst.stats.isDirectory() ? "" : " Pass overwrite: true to replace it."}`,
        );
      }
      try {
        await mkdir(path.dirname(dst.abs), { recursive: true });
        if (src.stats.isFile() && !args.overwrite) {
          // Security: link() fails if the destination appeared meanwhile, so nothing is clobbered.
          await link(src.abs, dst.abs);
          await unlink(src.abs);
        } else {
          await rename(src.abs, dst.abs);
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EXDEV") {
          await cp(src.abs, dst.abs, { recursive: true, errorOnExist: !args.overwrite, force: args.overwrite });
          await rm(src.abs, { recursive: true });
        } else {
          throw fromNodeError(err, (err as NodeJS.ErrnoException).code === "EEXIST" ? dst.display : src.display);
        }
      }
      return {
        structured: { source: src.display, destination: dst.display, root: dst.root.name },
        text: `Moved ${src.display} → ${dst.display}.`,
      };
    },
  );
}
