import { readFile } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import { editFileInput, editFileOutput, TOOL, type EditFileInput } from "@textide/shared";
import { FsError, fromNodeError, etagOf } from "@textide/shared/node";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { checkEtag, writeResolved } from "./write-support.js";

const MAX_EDIT_BYTES = 10 * 1024 * 1024;

export function registerEditFile(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.editFile,
    {
      title: "Edit file",
      description:
        "Apply exact-match replacements to a UTF-8 text file and return a unified diff. Each edit's " +
        "`oldText` must match exactly once (whitespace and case matter) unless `replaceAll` is true; " +
        "edits apply in order, all or nothing. `dryRun: true` shows the diff without writing. " +
        "Errors: no_match (read the file and copy the exact text), ambiguous_match (add surrounding " +
        "lines to make `oldText` unique, or set replaceAll), conflict (the file changed since " +
        "`expectedEtag`), not_found, outside_root.",
      input: editFileInput,
      output: editFileOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    async (args) => {
      const file = await ctx.policy.resolve(args.path, args.dryRun ? "read" : "write");
      if (!file.stats)
        throw new FsError("not_found", `${file.display} does not exist. Use fs_write_file to create it.`);
      if (file.stats.isDirectory()) throw new FsError("is_directory", `${file.display} is a directory.`);
      if (file.stats.size > MAX_EDIT_BYTES) {
        throw new FsError("too_large", `${file.display} is larger than 10 MB; edit it with fs_write_file instead.`);
      }
      await checkEtag(file, args.expectedEtag);
      const before = await readFile(file.abs, "utf8").catch((err: unknown) => {
        throw fromNodeError(err, file.display);
      });
      const { after, replacements } = applyEdits(before, args.edits, file.display);
      // Loaded on first edit: most sessions never edit, and it is not needed at start.
      const { createTwoFilesPatch } = await import("diff");
      const diff = createTwoFilesPatch(file.display, file.display, before, after, "original", "modified");
      let etag = await etagOf(file.abs);
      if (!args.dryRun && after !== before) {
        etag = await writeResolved(file, Buffer.from(after, "utf8"), { exclusive: false, createParents: false });
      }
      return {
        structured: { root: file.root.name, path: file.display, diff, replacements, applied: !args.dryRun, etag },
        text: `${args.dryRun ? "Dry run, nothing written" : `Edited ${file.display}`}: ${replacements} replacement(s).\n${diff}`,
      };
    },
  );
}

/** Applies edits in order; throws no_match / ambiguous_match without touching anything. */
export function applyEdits(
  text: string,
  edits: EditFileInput["edits"],
  display: string,
): { after: string; replacements: number } {
  let out = text;
  let replacements = 0;
  edits.forEach((edit, i) => {
    const count = countOccurrences(out, edit.oldText);
    const which = edits.length > 1 ? `Edit ${i + 1}: ` : "";
    if (count === 0) {
      throw new FsError(
        "no_match",
        `${which}oldText was not found in ${display}. Read the file and copy the exact text, including whitespace.`,
      );
    }
    if (count > 1 && !edit.replaceAll) {
      throw new FsError(
        "ambiguous_match",
        `${which}oldText occurs ${count} times in ${display}. Include more surrounding text to make it unique, or set replaceAll: true.`,
      );
    }
    out = edit.replaceAll ? out.split(edit.oldText).join(edit.newText) : out.replace(edit.oldText, () => edit.newText);
    replacements += edit.replaceAll ? count : 1;
  });
  return { after: out, replacements };
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}
