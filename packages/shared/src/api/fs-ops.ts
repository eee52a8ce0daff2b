import { z } from "zod";

/** `POST /api/fs/create` body: a new empty file or folder; missing parent folders are created. */
export const createEntryRequest = z.object({ path: z.string().min(1), type: z.enum(["file", "directory"]) });
export type CreateEntryRequest = z.infer<typeof createEntryRequest>;
export type CreateEntryResponse = CreateEntryRequest;

/** `POST /api/fs/rename` body: rename or move, also between the roots; never overwrites. */
export const renameEntryRequest = z.object({ from: z.string().min(1), to: z.string().min(1) });
export type RenameEntryRequest = z.infer<typeof renameEntryRequest>;
export type RenameEntryResponse = RenameEntryRequest;

/** `DELETE /api/fs?path=`: the deleted entry's workspace path. */
export interface DeleteEntryResponse {
  path: string;
}

/** `PUT /api/upload?path=&overwrite=1` (raw bytes as body): 201 with the new file's path and size. */
export interface UploadResponse {
  path: string;
  size: number;
}
