"use client";

import { useCallback, useEffect, useState } from "react";

const KEY = "textide-console-open";

/** Whether the bottom console is open: toggled by a button and by Ctrl+` (as in VS Code), remembered. */
export function useConsoleToggle(): [boolean, () => void] {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setOpen(localStorage.getItem(KEY) === "1");
  }, []);
  const toggle = useCallback(() => {
    setOpen((o) => {
      localStorage.setItem(KEY, o ? "0" : "1");
      return !o;
    });
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey && !e.altKey && !e.metaKey && e.code === "Backquote") {
        e.preventDefault();
        toggle();
      }
    };
    // Capture phase: Monaco stops the events it handles from bubbling.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [toggle]);
  return [open, toggle];
}
