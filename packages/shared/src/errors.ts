import { z } from "zod";
import { FS_ERROR_CODES } from "./fs-errors.js";

/**
 * One error vocabulary from the web server to the UI: every code is `${type}:${surface}` — what went
 * wrong, and where (ai-chatbot's `lib/errors.ts`). REST answers `{error: {code, message, ...details}}`,
 * socket acks `{ok: false, error: {code, message}}`, agent runs an `error` event with a code.
 */
export const ERROR_TYPES = [
  ...FS_ERROR_CODES,
  "bad_request",
  "unauthorized",
  "forbidden",
  "method_not_allowed",
  "unsupported_media_type",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const SURFACES = [
  /** The HTTP request itself: routing, Host/Origin checks, the body's media type and size. */
  "api",
  /** The file API (tree, file, raw, create/rename/delete, upload, quick open, open-file). */
  "file",
  "table",
  "thread",
  "socket",
  "agent",
  "run",
  "approval",
  "mcp",
] as const;
export type Surface = (typeof SURFACES)[number];

export type ErrorCode = `${ErrorType}:${Surface}`;

export function errorCode(type: ErrorType, surface: Surface): ErrorCode {
  return `${type}:${surface}`;
}

const TYPES = new Set<string>(ERROR_TYPES);
const SURFACE_SET = new Set<string>(SURFACES);

/** `not_found:file` → `{type: "not_found", surface: "file"}`; undefined for anything else. */
export function parseErrorCode(code: string): { type: ErrorType; surface: Surface } | undefined {
  const [type, surface, ...rest] = code.split(":");
  if (rest.length > 0 || !type || !surface || !TYPES.has(type) || !SURFACE_SET.has(surface)) return undefined;
  return { type: type as ErrorType, surface: surface as Surface };
}

export const errorCodeSchema = z.custom<ErrorCode>(
  (v) => typeof v === "string" && parseErrorCode(v) !== undefined,
  "expected an error code `${type}:${surface}`",
);

/** What a failed REST call answers; details (e.g. `currentEtag` of a conflict) sit beside code and message. */
export const apiErrorBody = z.object({
  error: z.looseObject({ code: errorCodeSchema, message: z.string() }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBody>;
