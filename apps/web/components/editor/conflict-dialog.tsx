"use client";

import dynamic from "next/dynamic";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { fetchFile } from "@/lib/api";

const ConflictDiff = dynamic(() => import("./conflict-diff"), {
  ssr: false,
  loading: () => <div className="viewer-note">Loading diff…</div>,
});

export interface ConflictDialogProps {
  path: string;
  /** The unsaved text in the editor. */
  mine: string;
  language: string;
  theme: "light" | "dark";
  /** The file is gone from disk (rather than changed): the choice is to recreate it or not. */
  deleted?: boolean;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
}

type Compare =
  { kind: "off" } | { kind: "loading" } | { kind: "ready"; disk: string } | { kind: "error"; message: string };

/**
 * Shown when a save hits 409: the file changed on disk since it was opened (Compare shows the diff), or it
 * was deleted there (offer to recreate it).
 */
export function ConflictDialog({
  path,
  mine,
  language,
  theme,
  deleted = false,
  onReload,
  onOverwrite,
  onCancel,
}: ConflictDialogProps): ReactNode {
  const ref = useRef<HTMLDialogElement>(null);
  const [compare, setCompare] = useState<Compare>({ kind: "off" });
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const startCompare = (): void => {
    setCompare({ kind: "loading" });
    fetchFile(path).then(
      (f) => setCompare({ kind: "ready", disk: f.content }),
      (err: unknown) => setCompare({ kind: "error", message: err instanceof Error ? err.message : String(err) }),
    );
  };
  const comparing = compare.kind !== "off";
  if (deleted)
    return (
      <dialog ref={ref} className="dialog" onCancel={onCancel} aria-labelledby="conflict-title">
        <h2 id="conflict-title">File deleted on disk</h2>
        <p>
          <code>{path}</code> was deleted on disk since you opened it. Your text is still here: recreate the file with
          it, or cancel and copy what you need.
        </p>
        <div className="dialog-actions">
          <button type="button" onClick={onOverwrite} title="Save your text as a new file at this path">
            Recreate file
          </button>
          <button type="button" onClick={onCancel} autoFocus>
            Cancel
          </button>
        </div>
      </dialog>
    );
  return (
    <dialog
      ref={ref}
      className={comparing ? "dialog conflict-compare" : "dialog"}
      onCancel={onCancel}
      aria-labelledby="conflict-title"
    >
      <h2 id="conflict-title">File changed on disk</h2>
      <p>
        <code>{path}</code> was modified by something else since you opened it.
        {comparing ? " Left: the file on disk. Right: your edits." : ""}
      </p>
      {compare.kind === "loading" ? <div className="viewer-note">Reading the file on disk…</div> : null}
      {compare.kind === "error" ? <div className="viewer-note error">{compare.message}</div> : null}
      {compare.kind === "ready" ? (
        <div className="diff-host" data-testid="conflict-diff">
          <ConflictDiff disk={compare.disk} mine={mine} language={language} theme={theme} />
        </div>
      ) : null}
      <div className="dialog-actions">
        {comparing ? (
          <>
            <button type="button" onClick={onReload} title="Discard your edits and load the file on disk">
              Take disk
            </button>
            <button
              type="button"
              className="danger"
              onClick={onOverwrite}
              title="Save your edits over the file on disk"
            >
              Keep mine
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={onReload}>
              Reload from disk
            </button>
            <button type="button" className="danger" onClick={onOverwrite}>
              Overwrite
            </button>
            <button type="button" onClick={startCompare}>
              Compare
            </button>
          </>
        )}
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
