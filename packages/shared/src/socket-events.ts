import { z } from "zod";
import type { AgentEvent } from "./agent-events.js";
import { openFileRequest } from "./api/open-file.js";
import type { ErrorCode } from "./errors.js";
import { ROOT } from "./tool-names.js";

/**
 * The web server ⇄ browser socket.io contract: every event is named `domain/verb`, and client payloads
 * are validated on the server against these schemas.
 */
export const SOCKET_EVENTS = {
  /** server → client: a file or folder under a root changed on disk. */
  fileChanged: "file/changed",
  /** server → client: open/focus a file in every connected browser (`system_open_file`). */
  fileOpen: "file/open",
  /** server → client: a run's events, to the sockets that follow its thread (`agent/follow`, or that started it). */
  agentEvent: "agent/event",
  /** server → client: the files a tool call of a run wrote, to every socket (every window opens them). */
  agentOutputs: "agent/outputs",
  /** server → client: one tool call seen by one of the app's MCP servers, to the sockets watching the log (`mcp/watch`). */
  mcpCall: "mcp/call",
  /**
   * server → client, team deployment only: whether this window's instance reaches the other instances
   * (Redis), on connect and on every change.
   */
  serverStatus: "server/status",
  /** client → server: start a run. */
  agentRun: "agent/run",
  agentCancel: "agent/cancel",
  agentApprove: "agent/approve",
  /** client → server: receive the events of this thread's runs (and no longer the previous thread's). */
  agentFollow: "agent/follow",
  /** client → server: receive `mcp/call` (while a window shows the call log) or stop. */
  mcpWatch: "mcp/watch",
} as const;

export const FILE_CHANGE_KINDS = ["add", "change", "unlink", "addDir", "unlinkDir"] as const;

export const fileChangedEvent = z.object({
  root: z.enum([ROOT.project, ROOT.assets]),
  /** Workspace path: `data/x.csv`, `generated_assets/chart.png`. */
  path: z.string().min(1),
  kind: z.enum(FILE_CHANGE_KINDS),
});
export type FileChangedEvent = z.infer<typeof fileChangedEvent>;
export type FileChangeKind = FileChangedEvent["kind"];

export const openFileEvent = openFileRequest;
export type OpenFileEvent = z.infer<typeof openFileEvent>;

/** `agent/run`: start a run, in a new thread unless `threadId` is given. */
const threadIdSchema = z.string().regex(/^[\w.:-]{1,200}$/, "letters, digits, _ . : - only");
export const agentRunRequest = z.object({
  threadId: threadIdSchema.optional(),
  text: z.string().trim().min(1).max(20_000),
});
/** `agent/follow`: the thread a window shows (none for a new, not yet started thread). */
export const agentFollowRequest = z.object({ threadId: threadIdSchema.nullable() });
/** `mcp/watch`: whether this window shows the MCP call log. */
export const mcpWatchRequest = z.object({ watch: z.boolean() });
export const agentCancelRequest = z.object({ runId: z.string().min(1).max(200) });
/** `agent/approve`: answer a thread's pending approval. */
export const agentApproveRequest = z.object({
  threadId: z.string().min(1).max(200),
  decision: z.enum(["approve", "reject"]),
});

/**
 * `mcp/call`: one tool call seen by one of the app's MCP servers (the agent's stdio child or the
 * Streamable HTTP server for external clients), for the console's call log.
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

export interface SocketError {
  code: ErrorCode;
  message: string;
}
export type Ack<T> = (reply: { ok: true; data: T } | { ok: false; error: SocketError }) => void;

/** What `agent/run` and `agent/approve` acknowledge. */
export interface RunStarted {
  runId: string;
  threadId: string;
}

/** `agent/outputs`: what one tool call of a run wrote (its `tool_end` outputs), for every window to open. */
export interface AgentOutputsEvent {
  runId: string;
  threadId: string;
  outputs: string[];
}

/** `server/status`: "down" while the instance cannot reach Redis (its windows miss the other instances' events). */
export interface ServerStatusEvent {
  cluster: "up" | "down";
}

export interface ServerToClientEvents {
  [SOCKET_EVENTS.fileChanged]: (event: FileChangedEvent) => void;
  [SOCKET_EVENTS.fileOpen]: (event: OpenFileEvent) => void;
  [SOCKET_EVENTS.agentEvent]: (event: AgentEvent) => void;
  [SOCKET_EVENTS.agentOutputs]: (event: AgentOutputsEvent) => void;
  [SOCKET_EVENTS.mcpCall]: (event: McpCallEvent) => void;
  [SOCKET_EVENTS.serverStatus]: (event: ServerStatusEvent) => void;
}

export interface ClientToServerEvents {
  [SOCKET_EVENTS.agentRun]: (payload: z.infer<typeof agentRunRequest>, ack: Ack<RunStarted>) => void;
  [SOCKET_EVENTS.agentCancel]: (payload: z.infer<typeof agentCancelRequest>, ack: Ack<{ runId: string }>) => void;
  [SOCKET_EVENTS.agentApprove]: (payload: z.infer<typeof agentApproveRequest>, ack: Ack<RunStarted>) => void;
  [SOCKET_EVENTS.agentFollow]: (
    payload: z.infer<typeof agentFollowRequest>,
    ack: Ack<{ threadId: string | null }>,
  ) => void;
  [SOCKET_EVENTS.mcpWatch]: (payload: z.infer<typeof mcpWatchRequest>, ack: Ack<{ watch: boolean }>) => void;
}
