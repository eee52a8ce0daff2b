/** The web server's REST answers and socket events the UI reads (defined in packages/shared), and path helpers. */

import type { TreeEntry } from "@textide/shared";

export type {
  AgentEvent,
  ClientToServerEvents,
  FileChangedEvent,
  FileResponse,
  FileChangeKind,
  OpenFileEvent,
  ServerToClientEvents,
  TableResponse,
  TreeEntry,
  TreeEntryType as EntryType,
  TreeResponse,
} from "@textide/shared";

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
