"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "@/lib/api";
import { uploadFile } from "@/lib/file-ops";
import { joinPath } from "@/lib/paths";

export interface UploadItem {
  id: number;
  path: string;
  sent: number;
  total: number;
  status: "uploading" | "done" | "skipped" | "error";
  message?: string;
}

/**
 * Uploads files one after another into a project folder, with progress per file. A file that
 * already exists is replaced only after `confirmOverwrite` says so.
 */
export function useUploads(opts: { confirmOverwrite: (path: string) => boolean; onUploaded: (path: string) => void }): {
  items: UploadItem[];
  upload: (dir: string, files: File[]) => Promise<void>;
  clear: () => void;
} {
  const [items, setItems] = useState<UploadItem[]>([]);
  const nextId = useRef(1);
  const optsRef = useRef(opts);
  useEffect(() => {
    optsRef.current = opts;
  });

  const update = (id: number, patch: Partial<UploadItem>): void =>
    setItems((prev) => prev.map((it) => (it.id === id ? { ...it, ...patch } : it)));

  const upload = useCallback(async (dir: string, files: File[]) => {
    const queued = files.map((file) => ({ file, id: nextId.current++, path: joinPath(dir, file.name) }));
    setItems((prev) => [
      ...prev.filter((it) => it.status === "uploading"),
      ...queued.map(({ id, path, file }) => ({ id, path, sent: 0, total: file.size, status: "uploading" as const })),
    ]);
    for (const { file, id, path } of queued) {
      const onProgress = (sent: number, total: number): void => update(id, { sent, total });
      try {
        try {
          await uploadFile(path, file, { onProgress });
        } catch (err) {
          if (!(err instanceof ApiError && err.type === "exists")) throw err;
          if (!optsRef.current.confirmOverwrite(path)) {
            update(id, { status: "skipped", message: "already exists (kept)" });
            continue;
          }
          await uploadFile(path, file, { overwrite: true, onProgress });
        }
        update(id, { status: "done", sent: file.size });
        optsRef.current.onUploaded(path);
      } catch (err) {
        update(id, { status: "error", message: err instanceof Error ? err.message : String(err) });
      }
    }
  }, []);

  const clear = useCallback(() => setItems((prev) => prev.filter((it) => it.status === "uploading")), []);

  return { items, upload, clear };
}
