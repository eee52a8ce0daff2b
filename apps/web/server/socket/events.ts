import { ROOT } from "@textide/shared";
import { z } from "zod";

// These payload schemas belong in packages/shared (socket events are a cross-process contract);
// they live here until the UI needs them and they move there.

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

export interface ServerToClientEvents {
  file_changed: (event: FileChangedEvent) => void;
  open_file: (event: OpenFileEvent) => void;
}

// No client → server events yet (agent runs come with the agent runtime).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ClientToServerEvents {}
