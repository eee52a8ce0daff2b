import type { ServerResponse } from "node:http";
import { fileSearchQuery, type FileSearchResponse } from "@textide/shared";
import type { FileIndex } from "../fs/file-index.js";
import { readQuery, sendJson } from "./respond.js";

/** `GET /api/files?q=&limit=50`: quick open's fuzzy search over every file path of both roots. */
export async function getFileSearch(index: FileIndex, url: URL, res: ServerResponse): Promise<void> {
  const { q, limit } = readQuery(url, fileSearchQuery);
  await index.ready;
  const { hits, truncated } = index.search(q, limit);
  sendJson(res, 200, { hits, truncated: truncated || index.capped } satisfies FileSearchResponse);
}
