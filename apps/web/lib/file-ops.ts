import {
  toQuery,
  type FileSearchQuery,
  type CreateEntryRequest,
  type CreateEntryResponse,
  type DeleteEntryResponse,
  type FileSearchResponse,
  type RenameEntryRequest,
  type RenameEntryResponse,
  type UploadResponse,
} from "@textide/shared";
import { ApiError, call, q, rawUrl } from "./api";

function postJson<T>(url: string, body: unknown): Promise<T> {
  return call<T>(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

export function createEntry(path: string, type: "file" | "directory"): Promise<CreateEntryResponse> {
  return postJson("/api/fs/create", { path, type } satisfies CreateEntryRequest);
}

export function renameEntry(from: string, to: string): Promise<RenameEntryResponse> {
  return postJson("/api/fs/rename", { from, to } satisfies RenameEntryRequest);
}

export function deleteEntry(path: string): Promise<DeleteEntryResponse> {
  return call(`/api/fs?path=${q(path)}`, { method: "DELETE" });
}

export function downloadUrl(path: string): string {
  return `${rawUrl(path)}&download=1`;
}

export function searchFiles(query: string, limit: number, signal?: AbortSignal): Promise<FileSearchResponse> {
  return call(`/api/files?${toQuery({ q: query, limit } satisfies Partial<FileSearchQuery>)}`, { signal });
}

/**
 * `PUT /api/upload` with the file as the raw body. XMLHttpRequest rather than fetch: fetch reports
 * no upload progress. Rejects with ApiError (409 `exists`, 413, 403) like the other calls.
 */
export function uploadFile(
  path: string,
  file: Blob,
  opts: { overwrite?: boolean; onProgress?: (sent: number, total: number) => void } = {},
): Promise<UploadResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", `/api/upload?path=${q(path)}${opts.overwrite ? "&overwrite=1" : ""}`);
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => opts.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const body = (xhr.response ?? {}) as { error?: { code?: string; message?: string } };
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response as UploadResponse);
      else
        reject(
          new ApiError(
            xhr.status,
            body.error?.code ?? "error",
            body.error?.message ?? `Upload failed (HTTP ${xhr.status}).`,
          ),
        );
    };
    xhr.onerror = () => reject(new ApiError(0, "network", "The upload was interrupted (network error)."));
    xhr.send(file);
  });
}
