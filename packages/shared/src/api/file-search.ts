import { z } from "zod";
import { intParam, textParam } from "./query.js";

/** One hit of `GET /api/files?q=&limit=` (quick open). */
export interface FileSearchHit {
  path: string;
  /** Higher is better; hits come sorted by it. */
  score: number;
}

export interface FileSearchResponse {
  hits: FileSearchHit[];
  truncated: boolean;
}

/** Most hits one request may ask for. */
export const MAX_FILE_SEARCH_LIMIT = 500;

export const fileSearchQuery = z.object({
  q: textParam("q", 256).transform((q) => q ?? ""),
  limit: intParam("limit", 1, MAX_FILE_SEARCH_LIMIT).transform((n) => n ?? 50),
});
export type FileSearchQuery = z.output<typeof fileSearchQuery>;
