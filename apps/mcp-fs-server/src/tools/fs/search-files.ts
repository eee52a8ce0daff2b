import { open } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import picomatch from "picomatch";
import {
  ROOT,
  searchFilesInput,
  searchFilesOutput,
  TOOL,
  type SearchFilesInput,
  type SearchMatch,
} from "@textide/shared";
import {
  FsError,
  SKIPPED_DIRS,
  entryPath,
  type ResolvedPath,
  type Root,
  walk,
  type WalkEntry,
} from "@textide/shared/node";
import { detectEncoding } from "../../fs/text-decode.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";

const MAX_CONTENT_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINES_PER_FILE = 5;
/** Entries between two progress reports (which are throttled further in time). */
const PROGRESS_EVERY = 256;

export function registerSearchFiles(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.searchFiles,
    {
      title: "Search files",
      description:
        "Find files and folders by name and/or by text inside them, across the whole workspace " +
        "(project_root and generated_assets) or under `path`. `query` matches names case-insensitively " +
        "as a substring anywhere in the tree (`planets` finds `data/planets.xlsx`, `planets.xlsx` too), " +
        "or as a glob when it has * ? [ { (`*.csv`; a glob without `/` matches the file name, with `/` " +
        "the whole path, e.g. `data/**/*.tsv`). `content` finds files containing the text " +
        "(case-insensitive) and returns matching lines; binary files and files over 2 MB are skipped. " +
        "Give both to filter by name then content. .git and node_modules are skipped unless " +
        "includeIgnored. Results are capped at `limit` (default 200) with `truncated`. Use this first " +
        "when you know a file's name but not its folder.",
      input: searchFilesInput,
      output: searchFilesOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async (args, _req, _id, progress) => {
      const starts = await searchStarts(ctx, args);
      const nameMatch = nameMatcher(args.query);
      const matches: SearchMatch[] = [];
      let truncated = false;
      let scanned = 0;
      // Progress counts entries scanned, then (for a content search) files read on top of them.
      let seen = 0;
      for (const start of starts) {
        if (truncated) break;
        const candidates: WalkEntry[] = [];
        scanned += await walk(
          start.abs,
          { rootReal: start.root.real, skipDirs: args.includeIgnored ? new Set() : SKIPPED_DIRS, concurrency: 16 },
          (e) => {
            if (++seen % PROGRESS_EVERY === 0) void progress(seen, undefined, `${seen} entries scanned`);
            const display = () => ctx.policy.display(start.root, entryPath(e));
            if (!nameMatch(e.name, display)) return;
            if (args.content === undefined) {
              if (matches.length >= args.limit) {
                truncated = true;
                return false;
              }
              matches.push({ path: display(), root: start.root.name, type: e.type });
            } else if (e.type === "file" || e.targetType === "file") {
              candidates.push(e);
            }
          },
        );
        if (args.content !== undefined) {
          const before = seen;
          truncated = await grepFiles(
            ctx,
            start.root,
            candidates,
            args.content,
            args.limit,
            matches,
            (read) =>
              void progress(before + read, before + candidates.length, `${read} of ${candidates.length} files read`),
          );
          seen += candidates.length;
        }
      }
      await progress(seen, seen, `${scanned} entries scanned`, true);
      matches.sort((a, b) => a.path.localeCompare(b.path));
      const lines = matches.flatMap((m) => [
        m.type === "directory" ? `${m.path}/` : m.path,
        ...(m.lines ?? []).map((l) => `  ${l.line}: ${l.text}`),
      ]);
      const what = [
        args.query && `name ${JSON.stringify(args.query)}`,
        args.content && `content ${JSON.stringify(args.content)}`,
      ]
        .filter(Boolean)
        .join(" and ");
      const header =
        matches.length === 0
          ? `No files match ${what} (${scanned} entries scanned). Try a shorter name, a glob like *.csv, or fs_list_directory.`
          : `${matches.length} match${matches.length === 1 ? "" : "es"} for ${what}${truncated ? " (truncated; narrow the query or raise limit)" : ""}:`;
      return { structured: { matches, truncated, scanned }, text: [header, ...lines].join("\n") };
    },
  );
}

async function searchStarts(ctx: ToolContext, args: SearchFilesInput): Promise<ResolvedPath[]> {
  if (args.path !== "." && args.path !== "") {
    const dir = await ctx.policy.resolveExisting(args.path);
    if (!dir.stats.isDirectory())
      throw new FsError("not_a_directory", `${dir.display} is a file, not a folder to search in.`);
    return [dir];
  }
  const names = args.root === "all" ? [ROOT.project, ROOT.assets] : [args.root];
  return Promise.all(
    ctx.policy.roots
      .filter((r) => names.includes(r.name))
      .map((r) => ctx.policy.resolve(r.name === ROOT.project ? "." : r.name, "read")),
  );
}

/**
 * Substring match on the name (or the path when the query has a `/`), or a glob. The display
 * path is a thunk: computing it for every entry of a large tree would dominate the search.
 */
export function nameMatcher(query: string | undefined): (name: string, display: () => string) => boolean {
  if (query === undefined || query === "") return () => true;
  if (/[*?[\]{}]/.test(query)) {
    const hasSlash = query.includes("/");
    const isMatch = picomatch(query, { nocase: true, dot: true, basename: !hasSlash });
    return (name, display) => isMatch(hasSlash ? display() : name);
  }
  const needle = query.toLowerCase();
  return query.includes("/")
    ? (_name, display) => display().toLowerCase().includes(needle)
    : (name) => name.toLowerCase().includes(needle);
}

async function grepFiles(
  ctx: ToolContext,
  root: Root,
  files: WalkEntry[],
  content: string,
  limit: number,
  matches: SearchMatch[],
  onRead: (filesRead: number) => void,
): Promise<boolean> {
  const needle = content.toLowerCase();
  let next = 0;
  let read = 0;
  let truncated = false;
  const worker = async () => {
    while (next < files.length && !truncated) {
      const file = files[next++]!;
      const abs = entryPath(file);
      const lines = await grepFile(abs, needle);
      onRead(++read);
      if (lines.length === 0) continue;
      if (matches.length >= limit) {
        truncated = true;
        return;
      }
      matches.push({ path: ctx.policy.display(root, abs), root: root.name, type: "file", lines });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return truncated;
}

async function grepFile(abs: string, needle: string): Promise<{ line: number; text: string }[]> {
  const handle = await open(abs, "r").catch(() => undefined);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    if (size > MAX_CONTENT_FILE_BYTES || size === 0) return [];
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await handle.read(buf, 0, size, 0);
    const bytes = buf.subarray(0, bytesRead);
    const enc = detectEncoding(bytes.subarray(0, 64 * 1024));
    if (enc.kind === "binary") return [];
    const text = new TextDecoder(enc.label).decode(bytes);
    if (!text.toLowerCase().includes(needle)) return [];
    const out: { line: number; text: string }[] = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length && out.length < MAX_LINES_PER_FILE; i++) {
      const line = lines[i]!;
      if (line.toLowerCase().includes(needle))
        out.push({ line: i + 1, text: line.length > 200 ? `${line.slice(0, 200)}…` : line });
    }
    return out;
  } finally {
    await handle.close();
  }
}
