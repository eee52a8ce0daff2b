import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { ApiErrorBody, Surface } from "@textide/shared";
import { AppError } from "../errors.js";

const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, ...headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** `{error: {code, message, ...details}}` (`ApiErrorBody`); `surface` is the route's, unless the error has its own. */
export function sendError(res: ServerResponse, err: AppError, surface: Surface): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = { error: { ...err.details, code: err.codeOn(surface), message: err.message } } satisfies ApiErrorBody;
  sendJson(res, err.status, body, err.headers);
}

/**
 * Reads and parses a JSON body of at most `limit` bytes: 415 unless sent as `application/json`, 413
 * when larger, 400 when not JSON. The media type matters because a page on another site may send
 * `text/plain` (or form data) without asking first, and a browser does not always add an Origin;
 * `application/json` always needs a preflight, which this server never grants.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (mediaType(req.headers["content-type"]) !== "application/json") {
    throw new AppError(
      415,
      "unsupported_media_type",
      "Send the request body as JSON with the header `Content-Type: application/json`.",
      { surface: "api", headers: { connection: "close" } },
    );
  }
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new AppError(400, "bad_request", "The request needs a JSON body.", { surface: "api" });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AppError(400, "bad_request", "The request body is not valid JSON.", { surface: "api", cause: err });
  }
}

/** `application/json; charset=utf-8` → `application/json`. */
function mediaType(header: string | undefined): string | undefined {
  return header?.split(";", 1)[0]?.trim().toLowerCase();
}

function tooLarge(limit: number): AppError {
  return new AppError(413, "too_large", `The request body exceeds ${limit} bytes.`, {
    surface: "api",
    headers: { connection: "close" },
  });
}

/** A route's query parameters read with its shared schema; the first problem is the 400's message. */
export function readQuery<T extends z.ZodType>(url: URL, schema: T): z.output<T> {
  const parsed = schema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new AppError(400, "bad_request", parsed.error.issues[0]?.message ?? "Bad query string.");
  return parsed.data;
}
