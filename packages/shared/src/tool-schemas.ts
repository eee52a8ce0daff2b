import { z } from "zod";
import { FS_ERROR_CODES } from "./fs-errors.js";
import { ROOT } from "./tool-names.js";

/**
 * Input and output schemas of every bundled MCP tool. The server registers them, the agent and
 * the web UI parse results with them, so the three never drift apart.
 */

const workspacePath = z
  .string()
  .max(4096)
  .describe(
    "Workspace path: relative to project_root (e.g. `data/planets.xlsx`), or starting with " +
      "`generated_assets/` for the outputs folder. Absolute paths are accepted only inside the roots.",
  );

export const rootName = z.enum([ROOT.project, ROOT.assets]);
export const entryType = z.enum(["file", "directory", "symlink", "other"]);

export const fsErrorSchema = z.object({
  code: z.enum(FS_ERROR_CODES),
  message: z.string(),
});

// ---- fs_list_directory
export const listDirectoryInput = z.object({
  path: workspacePath.default(".").describe("Directory to list; `.` (default) is project_root."),
  depth: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe("1 lists direct children; larger values recurse (max 10)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(1000)
    .describe("Maximum entries returned; `truncated` says when more exist."),
  includeHidden: z.boolean().default(true).describe("Include dot-files and dot-folders."),
});
export const directoryEntry = z.object({
  name: z.string(),
  path: z.string(),
  type: entryType,
  size: z.number().optional(),
  mtime: z.string().optional(),
});
export const listDirectoryOutput = z.object({
  root: rootName,
  path: z.string(),
  entries: z.array(directoryEntry),
  truncated: z.boolean(),
});

// ---- fs_read_file
export const MAX_READ_PAGE_BYTES = 1024 * 1024;
export const DEFAULT_READ_PAGE_BYTES = 256 * 1024;
export const readFileInput = z.object({
  path: workspacePath,
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("Byte offset to start at; use the previous result's `nextOffset` to page."),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_READ_PAGE_BYTES)
    .default(DEFAULT_READ_PAGE_BYTES)
    .describe(`Bytes to return at most (default ${DEFAULT_READ_PAGE_BYTES}, max ${MAX_READ_PAGE_BYTES}).`),
});
export const readFileOutput = z.object({
  root: rootName,
  path: z.string(),
  mime: z.string(),
  size: z.number(),
  etag: z.string(),
  encoding: z.string().describe("Text encoding the bytes were decoded from, or `base64` for binary files."),
  offset: z.number(),
  bytesRead: z.number(),
  truncated: z.boolean(),
  nextOffset: z.number().optional(),
});

// ---- fs_write_file
export const writeFileInput = z.object({
  path: workspacePath,
  content: z.string().describe("The whole new file content."),
  encoding: z.enum(["utf8", "base64"]).default("utf8").describe("`base64` to write binary content."),
  mode: z
    .enum(["create", "overwrite"])
    .default("overwrite")
    .describe("`create` fails with `exists` when the file is already there."),
  expectedEtag: z
    .string()
    .optional()
    .describe("Etag from a previous read; the write fails with `conflict` if the file changed since."),
  createParents: z.boolean().default(true).describe("Create missing parent directories."),
});
export const writeFileOutput = z.object({
  root: rootName,
  path: z.string(),
  bytes: z.number(),
  etag: z.string(),
  created: z.boolean(),
});

// ---- fs_edit_file
export const editFileInput = z.object({
  path: workspacePath,
  edits: z
    .array(
      z.object({
        oldText: z.string().min(1).describe("Exact text to find (whitespace and case matter)."),
        newText: z.string().describe("Replacement text."),
        replaceAll: z
          .boolean()
          .default(false)
          .describe("Replace every occurrence; otherwise `oldText` must occur exactly once."),
      }),
    )
    .min(1)
    .max(100),
  dryRun: z.boolean().default(false).describe("Return the diff without writing."),
  expectedEtag: z.string().optional(),
});
export const editFileOutput = z.object({
  root: rootName,
  path: z.string(),
  diff: z.string(),
  replacements: z.number(),
  applied: z.boolean(),
  etag: z.string(),
});

// ---- fs_search_files
export const searchFilesInput = z
  .object({
    query: z
      .string()
      .max(500)
      .optional()
      .describe(
        "File-name filter: case-insensitive substring (`planets` finds `data/planets.xlsx`) or a " +
          "glob when it contains * ? [ { (`*.csv`, `data/**/*.tsv`).",
      ),
    content: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("Text to find inside files (case-insensitive); binary and huge files are skipped."),
    path: workspacePath.default(".").describe("Directory to search under (default: the root)."),
    root: z
      .enum([ROOT.project, ROOT.assets, "all"])
      .default("all")
      .describe("Which root(s) to search when `path` is `.`."),
    limit: z.number().int().min(1).max(5000).default(200),
    includeIgnored: z
      .boolean()
      .default(false)
      .describe("Also descend into .git and node_modules (skipped by default)."),
  })
  .refine((v) => v.query !== undefined || v.content !== undefined, {
    message: "Give `query` (file name) or `content` (text inside files), or both.",
  });
export const searchMatch = z.object({
  path: z.string(),
  root: rootName,
  type: entryType,
  size: z.number().optional(),
  lines: z
    .array(z.object({ line: z.number(), text: z.string() }))
    .optional()
    .describe("Matching lines (content search only)."),
});
export const searchFilesOutput = z.object({
  matches: z.array(searchMatch),
  truncated: z.boolean(),
  scanned: z.number().describe("Files and directories examined."),
});

// ---- fs_get_file_info
export const getFileInfoInput = z.object({ path: workspacePath });
export const getFileInfoOutput = z.object({
  root: rootName,
  path: z.string(),
  type: entryType,
  size: z.number(),
  mime: z.string().optional(),
  etag: z.string().optional(),
  mtime: z.string(),
  ctime: z.string(),
  birthtime: z.string(),
  mode: z.string(),
  isSymlink: z.boolean(),
});

// ---- fs_create_directory
export const createDirectoryInput = z.object({ path: workspacePath });
export const createDirectoryOutput = z.object({
  root: rootName,
  path: z.string(),
  created: z.boolean(),
});

// ---- fs_move_file
export const moveFileInput = z.object({
  source: workspacePath,
  destination: workspacePath,
  overwrite: z.boolean().default(false).describe("Replace an existing destination file."),
});
export const moveFileOutput = z.object({
  source: z.string(),
  destination: z.string(),
  root: rootName,
});

// ---- system_open_file
export const openFileInput = z.object({
  path: workspacePath,
  line: z.number().int().min(1).optional().describe("Line to reveal in a text editor."),
});
export const openFileOutput = z.object({
  path: z.string(),
  root: rootName,
  clients: z.number().describe("Browser windows that were asked to open the file."),
});

// ---- exec_run_js
export const EXEC_ERROR_KINDS = ["syntax", "runtime", "timeout", "memory", "policy", "limit"] as const;
/** A run's wall-clock limit; `env` names the server setting that changes its default. */
const runTimeoutMs = (env: string) =>
  z
    .number()
    .int()
    .min(100)
    .max(30_000)
    .optional()
    .describe(`Wall-clock limit in ms (default 5000 unless the server sets ${env}; max 30000).`);
export const runJsInput = z.object({
  code: z
    .string()
    .min(1)
    .max(200_000)
    .describe("Body of an async function: use `await` with the host API and `return` the result."),
  timeoutMs: runTimeoutMs("EXEC_TIMEOUT_SEC"),
  memoryMb: z.number().int().min(16).max(512).default(128).describe("Heap limit of the sandbox (default 128)."),
});
/**
 * Any JSON value, with the union of JSON types spelled out in the JSON Schema: `z.unknown()` alone
 * becomes `{}`, which validates nothing and which strict clients (the MCP Inspector) flag. The
 * TypeScript type stays `unknown`.
 */
const jsonValue = z.unknown().meta({ type: ["string", "number", "boolean", "null", "array", "object"] });

export const runJsOutput = z.object({
  ok: z.boolean(),
  result: jsonValue.optional().describe("The code's return value (JSON)."),
  logs: z.string(),
  logsTruncated: z.boolean(),
  outputs: z.array(z.object({ path: z.string(), bytes: z.number(), mime: z.string() })),
  error: z.object({ kind: z.enum(EXEC_ERROR_KINDS), message: z.string(), line: z.number().optional() }).optional(),
  durationMs: z.number(),
  queueMs: z.number().nonnegative().describe("Time the run waited for a free sandbox before it started, in ms."),
});

// ---- sql_query
export const SQL_MAX_ROWS = 10_000;
export const SQL_DEFAULT_ROWS = 200;
export const sqlQueryInput = z.object({
  sql: z
    .string()
    .min(1)
    .max(100_000)
    .describe("DuckDB SQL; workspace files are tables named by their path in single quotes: `FROM 'data/x.csv'`."),
  maxRows: z
    .number()
    .int()
    .min(1)
    .max(SQL_MAX_ROWS)
    .default(SQL_DEFAULT_ROWS)
    .describe(
      `Most rows to return (default ${SQL_DEFAULT_ROWS}, max ${SQL_MAX_ROWS}); \`truncated\` says when there were more.`,
    ),
});

/**
 * One result cell as JSON: numbers (integers beyond ±2^53 as strings; DECIMAL as numbers), strings,
 * booleans, null, dates and timestamps as ISO 8601 strings, lists as arrays, structs and maps as objects.
 */
const sqlCell = z.unknown().meta({ type: ["string", "number", "boolean", "null", "array", "object"] });

export const sqlQueryOutput = z.object({
  columns: z.array(
    z.object({ name: z.string(), type: z.string().describe("DuckDB type, e.g. BIGINT, VARCHAR, DATE.") }),
  ),
  rows: z.array(z.array(sqlCell)).describe("Rows as arrays aligned with `columns`."),
  rowCount: z.number().int().nonnegative().describe("Rows in `rows`."),
  truncated: z.boolean().describe("The result had more rows than `rows` holds (maxRows or the reply size cap)."),
  durationMs: z.number(),
  outputs: z
    .array(z.object({ path: z.string(), bytes: z.number(), mime: z.string() }))
    .describe("Files written by COPY … TO 'generated_assets/…'."),
  error: z
    .object({ kind: z.enum(EXEC_ERROR_KINDS), message: z.string() })
    .optional()
    .describe("Why the query failed (the result is then an error and columns/rows are empty)."),
});

// ---- exec_run_python
export const runPythonInput = z.object({
  code: z
    .string()
    .min(1)
    .max(200_000)
    .describe("A Python script; the value of a final expression statement becomes `result`."),
  timeoutMs: runTimeoutMs("PY_EXEC_TIMEOUT_SEC"),
  memoryMb: z
    .number()
    .int()
    .min(32)
    .max(1024)
    .default(512)
    .describe("Memory the code may allocate beyond the pre-loaded libraries, in MB (default 512)."),
});
/** Same shape as exec_run_js's result. */
export const runPythonOutput = runJsOutput;

export type ListDirectoryInput = z.infer<typeof listDirectoryInput>;
export type ListDirectoryOutput = z.infer<typeof listDirectoryOutput>;
export type DirectoryEntry = z.infer<typeof directoryEntry>;
export type ReadFileInput = z.infer<typeof readFileInput>;
export type ReadFileOutput = z.infer<typeof readFileOutput>;
export type WriteFileInput = z.infer<typeof writeFileInput>;
export type WriteFileOutput = z.infer<typeof writeFileOutput>;
export type EditFileInput = z.infer<typeof editFileInput>;
export type EditFileOutput = z.infer<typeof editFileOutput>;
export type SearchFilesInput = z.infer<typeof searchFilesInput>;
export type SearchFilesOutput = z.infer<typeof searchFilesOutput>;
export type SearchMatch = z.infer<typeof searchMatch>;
export type GetFileInfoInput = z.infer<typeof getFileInfoInput>;
export type GetFileInfoOutput = z.infer<typeof getFileInfoOutput>;
export type CreateDirectoryInput = z.infer<typeof createDirectoryInput>;
export type CreateDirectoryOutput = z.infer<typeof createDirectoryOutput>;
export type MoveFileInput = z.infer<typeof moveFileInput>;
export type MoveFileOutput = z.infer<typeof moveFileOutput>;
export type OpenFileInput = z.infer<typeof openFileInput>;
export type OpenFileOutput = z.infer<typeof openFileOutput>;
export type EntryType = z.infer<typeof entryType>;
export type RunJsInput = z.infer<typeof runJsInput>;
export type RunJsOutput = z.infer<typeof runJsOutput>;
export type RunPythonInput = z.infer<typeof runPythonInput>;
export type RunPythonOutput = z.infer<typeof runPythonOutput>;
export type ExecErrorKind = (typeof EXEC_ERROR_KINDS)[number];
export type SqlQueryInput = z.infer<typeof sqlQueryInput>;
export type SqlQueryOutput = z.infer<typeof sqlQueryOutput>;
