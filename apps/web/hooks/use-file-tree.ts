"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { fetchTree } from "@/lib/api";
import type { FileChangedEvent, TreeEntry } from "@/lib/types";
import { isDirectory, parentOf } from "@/lib/types";

export interface FileTreeState {
  /** Loaded folder listings by workspace path ("" is the top). */
  dirs: Readonly<Record<string, TreeEntry[]>>;
  expanded: ReadonlySet<string>;
  error: string | undefined;
  toggle: (dir: string) => void;
  /** Expands every ancestor of `path` and loads their listings. */
  reveal: (path: string) => Promise<void>;
  /** Applies a watcher event: reloads the affected listing when it is loaded. */
  applyChange: (event: FileChangedEvent) => void;
}

function sortEntries(entries: TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => {
    const d = Number(isDirectory(b)) - Number(isDirectory(a));
    return d !== 0 ? d : a.name.localeCompare(b.name, undefined, { numeric: true });
  });
}

function ancestors(path: string): string[] {
  const parts = path.split("/");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}

/** The explorer's lazily loaded tree: one `/api/tree?depth=1` request per opened folder. */
export function useFileTree(): FileTreeState {
  const [dirs, setDirs] = useState<Record<string, TreeEntry[]>>({});
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set([""]));
  const [error, setError] = useState<string>();
  const loaded = useRef(new Set<string>());
  const pending = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const load = useCallback(async (dir: string): Promise<void> => {
    try {
      const tree = await fetchTree(dir === "" ? "." : dir, 1);
      loaded.current.add(dir);
      setDirs((prev) => ({ ...prev, [dir]: sortEntries(tree.entries) }));
      setError(undefined);
    } catch (err) {
      if (dir === "") setError(err instanceof Error ? err.message : String(err));
      else {
        loaded.current.delete(dir);
        setDirs((prev) => {
          const next = { ...prev };
          delete next[dir];
          return next;
        });
      }
    }
  }, []);

  useEffect(() => {
    void load("");
  }, [load]);

  const toggle = useCallback(
    (dir: string) => {
      setExpanded((prev) => {
        const next = new Set(prev);
        if (next.has(dir)) next.delete(dir);
        else {
          next.add(dir);
          if (!loaded.current.has(dir)) void load(dir);
        }
        return next;
      });
    },
    [load],
  );

  const reveal = useCallback(
    async (path: string) => {
      const chain = ancestors(path);
      setExpanded((prev) => new Set([...prev, ...chain]));
      for (const dir of ["", ...chain]) if (!loaded.current.has(dir)) await load(dir);
    },
    [load],
  );

  const applyChange = useCallback(
    (event: FileChangedEvent) => {
      if (event.kind === "unlinkDir") {
        loaded.current.delete(event.path);
        setDirs((prev) => {
          const next = { ...prev };
          delete next[event.path];
          return next;
        });
      }
      const dir = parentOf(event.path);
      if (!loaded.current.has(dir) || event.kind === "change") return;
      const timers = pending.current;
      const t = timers.get(dir);
      if (t) clearTimeout(t);
      timers.set(
        dir,
        setTimeout(() => {
          timers.delete(dir);
          void load(dir);
        }, 50),
      );
    },
    [load],
  );

  return { dirs, expanded, error, toggle, reveal, applyChange };
}
