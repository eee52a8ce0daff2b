import path from "node:path";
import type { McpServer } from "@modelcontextprotocol/server";
import { moveFileInput, moveFileOutput, TOOL } from "@textide/shared";
import { FsError, fromNodeError, isInside, moveAt } from "@textide/shared/node";
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
    async (args) =>
      ctx.policy.withParent(args.source, "write", {}, (src) =>
        ctx.policy.withParent(args.destination, "write", { createParents: true }, async (dst) => {
          if (!src.stats) throw new FsError("not_found", `${src.display} does not exist.`);
          if (
            src.stats.isDirectory() &&
            isInside(path.join(src.dir.real, src.name), path.join(dst.dir.real, dst.name))
          ) {
            throw new FsError("invalid_path", `Cannot move ${src.display} into itself (${dst.display}).`);
          }
          if (dst.stats && (dst.stats.isDirectory() || !args.overwrite)) {
            throw new FsError(
              "exists",
              `${dst.display} already exists.${dst.stats.isDirectory() ? "" : " Pass overwrite: true to replace it."}`,
            );
          }
          await moveAt(src, dst, args.overwrite).catch((err: unknown) => {
            throw fromNodeError(err, (err as NodeJS.ErrnoException).code === "EEXIST" ? dst.display : src.display);
          });
          return {
            structured: { source: src.display, destination: dst.display, root: dst.root.name },
            text: `Moved ${src.display} → ${dst.display}.`,
          };
        }),
      ),
  );
}
