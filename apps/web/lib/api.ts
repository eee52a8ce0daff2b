import {
  parseErrorCode,
  toQuery,
  type TableQuery,
  type TreeQuery,
  type FileResponse,
  type ModelResponse,
  type SaveFileRequest,
  type SaveFileResponse,
  type TableResponse,
  type ThreadResponse,
  type ThreadsResponse,
  type ThreadSummary,
  type TraceMessage,
  type TreeResponse,
} from "@textide/shared";
import { forUser } from "./user-text";

export class ApiError extends Error {
  /** What went wrong, the code's first part (`exists` of `exists:file`): what callers branch on. */
  readonly type: string;

  constructor(
    readonly status: number,
    /** `${type}:${surface}` (packages/shared/src/errors.ts), or `network` when there was no answer. */
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    // The file API shares its messages with the MCP tools; their advice to the model is dropped.
    super(forUser(message));
    this.name = "ApiError";
    this.type = parseErrorCode(code)?.type ?? code;
  }
}

/** fetch + JSON; a non-2xx answer throws ApiError with the server's `{error: {code, message}}`. */
export async function call<T>(input: string, init?: RequestInit): Promise<T> {
  const res = await fetch(input, init);
  // A team server's session ended (expired, or signed out in another tab): back to the sign-in page.
  if (
    res.status === 401 &&
    res.headers.get("www-authenticate")?.startsWith("Cookie") &&
    !input.startsWith("/api/auth/")
  ) {
    window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  const body = (await res.json().catch(() => ({}))) as unknown;
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string } & Record<string, unknown> }).error ?? {};
    throw new ApiError(res.status, err.code ?? "error", err.message ?? `HTTP ${res.status}`, err);
  }
  return body as T;
}

/** A query-string value. */
export const q = (value: string): string => encodeURIComponent(value);

export function fetchTree(path: string, depth = 1): Promise<TreeResponse> {
  return call<TreeResponse>(`/api/tree?${toQuery({ path, depth } satisfies Partial<TreeQuery>)}`);
}

export function fetchFile(path: string): Promise<FileResponse> {
  return call<FileResponse>(`/api/file?path=${q(path)}`);
}

/** PUT with `expectedEtag`; a conflict throws ApiError(409) with `currentEtag` in details. */
export function saveFile(path: string, content: string, expectedEtag: string | undefined): Promise<SaveFileResponse> {
  const body: SaveFileRequest = expectedEtag === undefined ? { content } : { content, expectedEtag };
  return call<SaveFileResponse>(`/api/file?path=${q(path)}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** `/api/raw` for `path`; `cacheKey` makes the URL unique (the browser reuses decoded images by URL). */
export function rawUrl(path: string, cacheKey?: string): string {
  return `/api/raw?path=${q(path)}${cacheKey ? `&v=${q(cacheKey)}` : ""}`;
}

/** The agent's model as `GET /api/model` describes it. */
export type ModelInfo = ModelResponse;

/** The agent's model, or undefined while the server runs without the agent runtime (404). */
export async function fetchModel(): Promise<ModelInfo | undefined> {
  try {
    return await call<ModelInfo>("/api/model");
  } catch {
    return undefined;
  }
}

export type { TableResponse, ThreadSummary };

/** One page of a table (`GET /api/table`), sorted by one column if asked. */
export function fetchTable(
  path: string,
  page: { sheet?: string; offset: number; limit: number; sort?: { col: number; dir: "asc" | "desc" } },
  signal?: AbortSignal,
): Promise<TableResponse> {
  const query: Partial<TableQuery> = {
    path,
    sheet: page.sheet || undefined,
    offset: page.offset,
    limit: page.limit,
    sort: page.sort?.col,
    dir: page.sort?.dir,
  };
  return call<TableResponse>(`/api/table?${toQuery(query)}`, { signal });
}

export async function fetchThreads(): Promise<ThreadSummary[]> {
  return (await call<ThreadsResponse>("/api/threads")).threads;
}

export async function fetchThread(threadId: string): Promise<TraceMessage[]> {
  return (await call<ThreadResponse>(`/api/threads/${encodeURIComponent(threadId)}`)).messages;
}
