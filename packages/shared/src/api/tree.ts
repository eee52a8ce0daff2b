/** `GET /api/tree?path=&depth=`: a folder's entries, `depth` levels deep (1 to 8). */
import { z } from "zod";
import { intParam, textParam } from "./query.js";

export type TreeEntryType = "file" | "directory" | "symlink" | "other";

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

export interface TreeResponse {
  path: string;
  /** The root the folder is in (`project_root` or `generated_assets`). */
  root: string;
  entries: TreeEntry[];
  truncated: boolean;
}

/** Deepest listing one request may ask for. */
export const MAX_TREE_DEPTH = 8;

export const treeQuery = z.object({
  path: textParam("path").transform((p) => p ?? "."),
  depth: intParam("depth", 1, MAX_TREE_DEPTH).transform((d) => d ?? 1),
});
export type TreeQuery = z.output<typeof treeQuery>;
