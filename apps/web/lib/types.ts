/** Shapes of the web server's REST answers and socket events, as the browser sees them. */

import type { AgentEvent } from "@textide/shared";

export type { AgentEvent };

export type EntryType = "file" | "directory" | "symlink" | "other";

export interface TreeEntry {
  name: string;
  path: string;
  type: EntryType;
  targetType?: "file" | "directory";
  size?: number;
  mtime?: string;
  children?: TreeEntry[];
}

export interface TreeResponse {
  path: string;
  root: string;
  entries: TreeEntry[];
  truncated: boolean;
}

export interface FileResponse {
  path: string;
  content: string;
  etag: string;
  encoding: string;
  size: number;
  mime: string;
}

export type FileChangeKind = "add" | "change" | "unlink" | "addDir" | "unlinkDir";

export interface FileChangedEvent {
  root: string;
  path: string;
  kind: FileChangeKind;
}

export interface OpenFileEvent {
  path: string;
  line?: number;
}

export type SocketAck<T> = (
  reply: { ok: true; data: T } | { ok: false; error: { code: string; message: string } },
) => void;

export interface ServerToClientEvents {
  file_changed: (event: FileChangedEvent) => void;
  open_file: (event: OpenFileEvent) => void;
  /** Present once the agent runtime is wired into the server. */
  "agent/event": (event: AgentEvent) => void;
}

export interface ClientToServerEvents {
  "agent/run": (
    payload: { threadId?: string; text: string },
    ack: SocketAck<{ runId: string; threadId: string }>,
  ) => void;
  "agent/cancel": (payload: { runId: string }, ack: SocketAck<{ runId: string }>) => void;
  "agent/approve": (
    payload: { threadId: string; decision: "approve" | "reject" },
    ack: SocketAck<{ runId: string; threadId: string }>,
  ) => void;
}

/** The workspace folder that holds the agent's outputs. */
export const ASSETS_DIR = "generated_assets";

export function isGenerated(path: string): boolean {
  return path === ASSETS_DIR || path.startsWith(`${ASSETS_DIR}/`);
}

export function isDirectory(entry: TreeEntry): boolean {
  return entry.type === "directory" || (entry.type === "symlink" && entry.targetType === "directory");
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
