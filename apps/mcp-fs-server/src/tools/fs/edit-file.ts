import { constants } from "node:fs";
import { readFile } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import { editFileInput, editFileOutput, TOOL, type EditFileInput, type EditFileOutput } from "@textide/shared";
import {
  FsError,
  commitLocked,
  currentStats,
  etagFromStats,
  fromNodeError,
  withEntryLock,
  type AnchoredPath,
} from "@textide/shared/node";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";

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
    async (args) =>
      ctx.policy.withParent(args.path, args.dryRun ? "read" : "write", {}, (file) =>
        // The read, the edit and the write are one step for every writer (no lost concurrent edit);
        // a dry run writes nothing and takes no lock.
        (args.dryRun
          ? (fn: () => Promise<EditResult>) => fn()
          : (fn: () => Promise<EditResult>) => withEntryLock(file, fn))(async () => {
          const current = currentStats(file);
          if (!current)
            throw new FsError("not_found", `${file.display} does not exist. Use fs_write_file to create it.`);
          if (current.isSymbolicLink()) {
            throw new FsError("denied", `${file.display} is a symbolic link; edit the file it points to instead.`);
          }
          if (current.isDirectory()) throw new FsError("is_directory", `${file.display} is a directory.`);
          if (current.size > MAX_EDIT_BYTES) {
            throw new FsError("too_large", `${file.display} is larger than 10 MB; edit it with fs_write_file instead.`);
          }
          let etag = etagFromStats(current);
          if (args.expectedEtag !== undefined && args.expectedEtag !== etag) {
            throw new FsError(
              "conflict",
              `${file.display} changed since it was read (etag ${args.expectedEtag}, now ${etag}). Read it again, reapply your change, and retry with the new etag.`,
            );
          }
          const before = await readEntry(file);
          const { after, replacements } = applyEdits(before, args.edits, file.display);
          // Loaded on first edit: most sessions never edit, and it is not needed at start.
          const { createTwoFilesPatch } = await import("diff");
          const diff = createTwoFilesPatch(file.display, file.display, before, after, "original", "modified");
          if (!args.dryRun && after !== before) {
            etag = (await commitLocked(file, Buffer.from(after, "utf8"))).etag;
          }
          return {
            structured: { root: file.root.name, path: file.display, diff, replacements, applied: !args.dryRun, etag },
            text: `${args.dryRun ? "Dry run, nothing written" : `Edited ${file.display}`}: ${replacements} replacement(s).\n${diff}`,
          };
        }),
      ),
  );
}

type EditResult = { structured: EditFileOutput; text: string };

/** The entry's text, read without following a symlink that may have replaced it. */
async function readEntry(file: AnchoredPath): Promise<string> {
  return readFile(file.at, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(
    (err: unknown) => {
      throw fromNodeError(err, file.display);
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
