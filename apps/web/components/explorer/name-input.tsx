"use client";

import { useEffect, useRef, type ReactNode } from "react";

export interface NameInputProps {
  initial: string;
  label: string;
  onCommit: (name: string) => void;
  onCancel: () => void;
}

/**
 * The inline name field for a new entry or a rename: Enter or leaving the field commits, Escape
 * cancels. The base name is pre-selected without its extension, as editors do.
 */
export function NameInput({ initial, label, onCommit, onCancel }: NameInputProps): ReactNode {
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);

  useEffect(() => {
    const input = ref.current;
    if (!input) return;
    input.focus();
    const dot = initial.lastIndexOf(".");
    input.setSelectionRange(0, dot > 0 ? dot : initial.length);
  }, [initial]);

  const finish = (commit: boolean): void => {
    if (done.current) return;
    done.current = true;
    const name = ref.current?.value.trim() ?? "";
    if (commit && name !== "" && name !== initial) onCommit(name);
    else onCancel();
  };

  return (
    <input
      ref={ref}
      className="tree-input"
      aria-label={label}
      defaultValue={initial}
      spellCheck={false}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        // The tree's own keys (arrows, Delete, F2) must not act while typing a name.
        e.stopPropagation();
        if (e.key === "Enter") finish(true);
        else if (e.key === "Escape") finish(false);
      }}
      onBlur={() => finish(true)}
    />
  );
}
