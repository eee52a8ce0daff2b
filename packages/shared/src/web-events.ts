import { z } from "zod";
import type { AgentEvent } from "./agent-events.js";
import type { ErrorCode } from "./errors.js";
import { ROOT } from "./tool-names.js";

/**
 * The web server ⇄ browser contract: socket.io payloads (validated on the server at the boundary)
 * and the shapes of the REST answers the UI reads.
 */

export const FILE_CHANGE_KINDS = ["add", "change", "unlink", "addDir", "unlinkDir"] as const;

/** server → client: a file or directory under a root changed on disk. */
export const fileChangedEvent = z.object({
  root: z.enum([ROOT.project, ROOT.assets]),
  /** Workspace path: `data/x.csv`, `generated_assets/chart.png`. */
  path: z.string().min(1),
  kind: z.enum(FILE_CHANGE_KINDS),
});
export type FileChangedEvent = z.infer<typeof fileChangedEvent>;
export type FileChangeKind = FileChangedEvent["kind"];

/** server → client: open/focus a file in every connected browser (`system_open_file`). */
export const openFileEvent = z.object({
  path: z.string().min(1),
  line: z.number().int().positive().optional(),
});
export type OpenFileEvent = z.infer<typeof openFileEvent>;

/** client → server `agent/run`: start a run, in a new thread unless `threadId` is given. */
export const agentRunRequest = z.object({
  threadId: z
    .string()
    .regex(/^[\w.:-]{1,200}$/, "letters, digits, _ . : - only")
    .optional(),
  text: z.string().trim().min(1).max(20_000),
});
/** client → server `agent/cancel`. */
export const agentCancelRequest = z.object({ runId: z.string().min(1).max(200) });
/** client → server `agent/approve`: answer a thread's pending approval. */
export const agentApproveRequest = z.object({
  threadId: z.string().min(1).max(200),
  decision: z.enum(["approve", "reject"]),
});

/**
 * server → client `mcp/call`: one tool call seen by one of the app's MCP servers (the agent's stdio
 * child or the Streamable HTTP server for external clients), for the console's call log.
 */
export const mcpCallEvent = z.object({
  /** Unique per entry (the correlation id when the call carried one, else generated). */
  id: z.string().min(1),
  /** ISO time the call finished. */
  at: z.string(),
  /** Which connection made the call: the in-app agent, or an external MCP client over HTTP. */
  source: z.enum(["agent", "external"]),
  tool: z.string().min(1),
  durationMs: z.number().nonnegative(),
  /** `ok`, or the error code (`not_found`, `outside_roots`, `tool_error`, `internal`, …). */
  status: z.string().min(1),
  /** Argument summary as logged by the server (long strings shortened, secrets redacted). */
  args: z.unknown().optional(),
});
export type McpCallEvent = z.infer<typeof mcpCallEvent>;

/** One hit of `GET /api/files?q=` (quick open). */
export interface FileSearchHit {
  path: string;
  /** Higher is better; hits come sorted by it. */
  score: number;
}

export interface SocketError {
  code: ErrorCode;
  message: string;
}
export type Ack<T> = (reply: { ok: true; data: T } | { ok: false; error: SocketError }) => void;

export interface ServerToClientEvents {
  file_changed: (event: FileChangedEvent) => void;
  open_file: (event: OpenFileEvent) => void;
  /** Every event of every run, to every socket (all open windows follow a run). */
  "agent/event": (event: AgentEvent) => void;
  "mcp/call": (event: McpCallEvent) => void;
}

export interface ClientToServerEvents {
  "agent/run": (payload: z.infer<typeof agentRunRequest>, ack: Ack<{ runId: string; threadId: string }>) => void;
  "agent/cancel": (payload: z.infer<typeof agentCancelRequest>, ack: Ack<{ runId: string }>) => void;
  "agent/approve": (
    payload: z.infer<typeof agentApproveRequest>,
    ack: Ack<{ runId: string; threadId: string }>,
  ) => void;
}

export type TreeEntryType = "file" | "directory" | "symlink" | "other";

/** One entry of `GET /api/tree`. */
export interface TreeEntry {
  name: string;
  /** Workspace path (`data/x.csv`, `generated_assets/chart.png`). */
  path: string;
  type: TreeEntryType;
  /** For a symlink whose target stays inside its root: the target's type. */
  targetType?: "file" | "directory";
  size?: number;
  mtime?: string;
  /** Present on directories listed below the requested depth. */
  children?: TreeEntry[];
}

/**
 * `GET /api/table?path=&sheet=&offset=&limit=&sort=&dir=`: one page of a table (a workbook's sheet or a
 * CSV/TSV file of any size), cells as text, the header row apart.
 */
export interface TableResponse {
  path: string;
  sheets: string[];
  sheet: string;
  columns: string[];
  /** The page: rows `offset` … `offset + rows.length - 1` of the table in the order asked for. */
  rows: string[][];
  /** Each page row's 0-based position among the file's data rows (sorting moves rows). */
  rowNumbers: number[];
  offset: number;
  /** Data rows in the table (the header row excluded), every row counted. */
  totalRows: number;
  /** Sorting is offered for tables up to this many rows; larger ones are shown in file order. */
  maxSortRows: number;
  /** Cells that could not be read as they are (e.g. a numeric cell holding "NaN", shown empty). */
  warnings?: string[];
}
