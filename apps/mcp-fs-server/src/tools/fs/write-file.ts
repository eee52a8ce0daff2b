import type { McpServer } from "@modelcontextprotocol/server";
import { TOOL, writeFileInput, writeFileOutput } from "@textide/shared";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { formatBytes } from "./format.js";
import { writeAnchored } from "./write-support.js";

export function registerWriteFile(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.writeFile,
    {
      title: "Write file",
      description:
        "Create or replace a whole file in the workspace (UTF-8 text, or binary with encoding=base64). " +
        "The write is atomic: readers and the IDE never see half a file. mode=create fails with `exists` " +
        "if the file is there; mode=overwrite (default) replaces it. Pass `expectedEtag` from fs_read_file " +
        "to fail with `conflict` instead of overwriting someone else's change. Missing parent folders are " +
        "created. To change part of a file, prefer fs_edit_file. Put generated outputs under " +
        "`generated_assets/`. Limit 20 MB per call. Writes never follow a symbolic link at the target.",
      input: writeFileInput,
      output: writeFileOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async (args) => {
      const data = args.encoding === "base64" ? Buffer.from(args.content, "base64") : Buffer.from(args.content, "utf8");
      return ctx.policy.withParent(args.path, "write", { createParents: args.createParents }, async (file) => {
        const { etag, created } = await writeAnchored(file, data, {
          exclusive: args.mode === "create",
          ...(args.expectedEtag === undefined ? {} : { expectedEtag: args.expectedEtag }),
        });
        return {
          structured: { root: file.root.name, path: file.display, bytes: data.byteLength, etag, created },
          text: `${created ? "Created" : "Overwrote"} ${file.display} (${formatBytes(data.byteLength)}).`,
        };
      });
    },
  );
}
