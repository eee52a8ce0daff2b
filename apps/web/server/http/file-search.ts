import type { ServerResponse } from "node:http";
import type { FileSearchResponse } from "@textide/shared";
import { AppError } from "../errors.js";
import type { FileIndex } from "../fs/file-index.js";
import { sendJson } from "./respond.js";

const MAX_LIMIT = 500;
const MAX_QUERY = 256;

/** `GET /api/files?q=&limit=50`: quick open's fuzzy search over every file path of both roots. */
export async function getFileSearch(index: FileIndex, url: URL, res: ServerResponse): Promise<void> {
  const q = url.searchParams.get("q") ?? "";
  if (q.length > MAX_QUERY) throw new AppError(400, "bad_request", `\`q\` is limited to ${MAX_QUERY} characters.`);
  const limitParam = url.searchParams.get("limit");
  const limit = limitParam === null ? 50 : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new AppError(400, "bad_request", `\`limit\` must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  await index.ready;
  const { hits, truncated } = index.search(q, limit);
  sendJson(res, 200, { hits, truncated: truncated || index.capped } satisfies FileSearchResponse);
}
