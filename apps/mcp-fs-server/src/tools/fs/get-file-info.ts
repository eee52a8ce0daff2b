import { lstat } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import { getFileInfoInput, getFileInfoOutput, TOOL } from "@textide/shared";
import { etagOf } from "@textide/shared/node";
import { mimeOf } from "../../fs/mime.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { formatBytes } from "./format.js";

export function registerGetFileInfo(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.getFileInfo,
    {
      title: "Get file info",
      description:
        "Metadata of a file or folder without reading it: type, size, MIME type, etag, modification, " +
        "change and creation times, permissions, and whether the path is a symbolic link. Use it to check " +
        "a size before reading a large file. Errors: not_found, outside_root.",
      input: getFileInfoInput,
      output: getFileInfoOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async (args) => {
      const file = await ctx.policy.resolveExisting(args.path);
      const s = file.stats;
      const link = await lstat(ctx.policy.locate(args.path).candidate).catch(() => undefined);
      const isFile = s.isFile();
      const info = {
        root: file.root.name,
        path: file.display,
        type: isFile ? ("file" as const) : ("directory" as const),
        size: s.size,
        ...(isFile ? { mime: mimeOf(file.abs), etag: await etagOf(file.abs) } : {}),
        mtime: s.mtime.toISOString(),
        ctime: s.ctime.toISOString(),
        birthtime: s.birthtime.toISOString(),
        mode: (s.mode & 0o777).toString(8).padStart(3, "0"),
        isSymlink: link?.isSymbolicLink() ?? false,
      };
      return {
        structured: info,
        text: `${info.path}: ${info.type}${isFile ? `, ${formatBytes(info.size)}, ${info.mime}` : ""}, modified ${info.mtime}${info.isSymlink ? ", symbolic link" : ""}.`,
      };
    },
  );
}
