import { z } from "zod";
import { pathParam } from "./query.js";

/** `?path=` of `/api/file` (GET, PUT) and `/api/raw`. */
export const fileQuery = z.object({ path: pathParam });

/** `GET /api/file?path=`: a text file for the editor (up to 5 MiB; binary files are refused). */
export interface FileResponse {
  path: string;
  content: string;
  etag: string;
  /** The encoding the bytes were decoded from (`utf-8`, `utf-16le`, …). */
  encoding: string;
  size: number;
  mime: string;
}

/** `PUT /api/file?path=` body: with `expectedEtag`, a file changed on disk since is a 409, not overwritten. */
export const saveFileRequest = z.object({
  content: z.string(),
  expectedEtag: z.string().min(1).optional(),
});
export type SaveFileRequest = z.infer<typeof saveFileRequest>;

/** `PUT /api/file`: 201 when the file was created, else 200. */
export interface SaveFileResponse {
  path: string;
  etag: string;
  size: number;
  created: boolean;
}

/** Details of a save's `conflict:file` (409) error. */
export interface SaveConflictDetails {
  /** The file's etag now; null when it was deleted. */
  currentEtag: string | null;
  deleted: boolean;
}
