"use client";

import type { ReactNode } from "react";
import type { UploadItem } from "@/hooks/use-uploads";

const LABEL: Record<UploadItem["status"], string> = {
  uploading: "uploading",
  done: "uploaded",
  skipped: "skipped",
  error: "failed",
};

/** Progress and outcome of the explorer's uploads. */
export function UploadStatus({ items, onClear }: { items: UploadItem[]; onClear: () => void }): ReactNode {
  if (items.length === 0) return null;
  const busy = items.some((it) => it.status === "uploading");
  return (
    <div className="upload-status" role="status" aria-label="Uploads">
      <div className="upload-status-head">
        <span>Uploads</span>
        {busy ? null : (
          <button type="button" className="icon-button" aria-label="Clear uploads" onClick={onClear}>
            ×
          </button>
        )}
      </div>
      {items.map((it) => (
        <div key={it.id} className={`upload-item ${it.status}`} data-upload={it.path} data-status={it.status}>
          <span className="upload-name" title={it.path}>
            {it.path}
          </span>
          <span className="upload-state">
            {it.status === "uploading" && it.total > 0
              ? `${Math.floor((it.sent / it.total) * 100)} %`
              : LABEL[it.status]}
          </span>
          {it.status === "uploading" ? (
            <progress max={Math.max(it.total, 1)} value={it.sent} aria-label={`Uploading ${it.path}`} />
          ) : null}
          {it.message ? <span className="upload-message">{it.message}</span> : null}
        </div>
      ))}
    </div>
  );
}
