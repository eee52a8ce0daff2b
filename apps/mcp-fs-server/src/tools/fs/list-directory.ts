import { lstatSync } from "node:fs";
import { listDirectoryInput, listDirectoryOutput, TOOL, type DirectoryEntry } from "@textide/shared";
import { FsError, SKIPPED_DIRS, entryPath, walk } from "@textide/shared/node";
import type { McpServer } from "@modelcontextprotocol/server";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { formatBytes } from "./format.js";

export function registerListDirectory(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.listDirectory,
    {
      title: "List directory",
      description:
        "List the entries of a directory in the workspace: name, path, type (file, directory, symlink), " +
        "size and modification time. Use it to explore before reading. `.` is project_root; " +
        "`generated_assets` is the folder where generated charts and files land. `depth` > 1 recurses " +
        "(.git and node_modules are listed but not entered). At most `limit` entries (default 1000); " +
        "`truncated: true` means there are more: list a subdirectory or use fs_search_files. " +
        "Errors: not_found (check the path with fs_search_files), not_a_directory, outside_root.",
      input: listDirectoryInput,
      output: listDirectoryOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async (args) => {
      const dir = await ctx.policy.resolveExisting(args.path);
      if (!dir.stats.isDirectory()) {
        throw new FsError("not_a_directory", `${dir.display} is a file. Use fs_read_file to read it.`);
      }
      const entries: DirectoryEntry[] = [];
      let truncated = false;
      const found: { abs: string; name: string; type: DirectoryEntry["type"] }[] = [];
      await walk(
        dir.abs,
        { rootReal: dir.root.real, skipDirs: SKIPPED_DIRS, maxDepth: args.depth, concurrency: 4 },
        (e) => {
          if (!args.includeHidden && e.name.startsWith(".")) return;
          if (found.length >= args.limit) {
            truncated = true;
            return false;
          }
          found.push({ abs: entryPath(e), name: e.name, type: e.type });
        },
      );
      // One lstat per entry for size and mtime (synchronous: µs each, no thread-pool hop);
      // symlinks report nothing about their targets.
      for (const f of found) {
        const st = f.type === "symlink" ? undefined : lstatSync(f.abs, { throwIfNoEntry: false });
        entries.push({
          name: f.name,
          path: ctx.policy.display(dir.root, f.abs),
          type: f.type,
          ...(st && f.type === "file" ? { size: st.size } : {}),
          ...(st ? { mtime: st.mtime.toISOString() } : {}),
        });
      }
      entries.sort((a, b) => a.path.localeCompare(b.path));
      const lines = entries.map((e) =>
        e.type === "directory"
          ? `${e.path}/`
          : e.size !== undefined
            ? `${e.path} (${formatBytes(e.size)})`
            : `${e.path} [${e.type}]`,
      );
      const header = `${dir.display}: ${entries.length} entr${entries.length === 1 ? "y" : "ies"}${truncated ? " (truncated; raise limit or narrow the path)" : ""}`;
      return {
        structured: { root: dir.root.name, path: dir.display, entries, truncated },
        text: [header, ...lines].join("\n"),
      };
    },
  );
}
