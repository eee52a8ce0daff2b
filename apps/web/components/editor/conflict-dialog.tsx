"use client";

import { useEffect, useRef, type ReactNode } from "react";

export interface ConflictDialogProps {
  path: string;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
}

/** Shown when a save hits 409: the file changed on disk since it was opened. */
export function ConflictDialog({ path, onReload, onOverwrite, onCancel }: ConflictDialogProps): ReactNode {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={ref} className="dialog" onCancel={onCancel} aria-labelledby="conflict-title">
      <h2 id="conflict-title">File changed on disk</h2>
      <p>
        <code>{path}</code> was modified by something else since you opened it.
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onReload}>
          Reload from disk
        </button>
        <button type="button" className="danger" onClick={onOverwrite}>
          Overwrite
        </button>
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
