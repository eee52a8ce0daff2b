"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { fetchTree } from "@/lib/api";
import { ancestorsOf, isAtOrBelow } from "@/lib/paths";
import { compareEntries, insertSorted, type TreeListing } from "@/lib/tree-rows";
import type { FileChangeKind, TreeEntry } from "@/lib/types";
import { baseName, parentOf } from "@/lib/types";

export interface FileTreeState {
  /** Loaded folder listings by workspace path ("" is the top). */
  dirs: Readonly<Record<string, TreeListing>>;
  /** Folders whose listing failed, with the server's message. */
  failed: Readonly<Record<string, string>>;
  expanded: ReadonlySet<string>;
  toggle: (dir: string) => void;
  expand: (dir: string) => void;
  collapse: (dir: string) => void;
  collapseAll: () => void;
  /** Reloads every loaded listing from the server. */
  refresh: () => Promise<void>;
  /** Expands every ancestor of `path` and loads their listings. */
  reveal: (path: string) => Promise<void>;
  /** Applies a change (a watcher event, or the explorer's own operation) to the loaded listings. */
  applyChange: (change: { path: string; kind: FileChangeKind }) => void;
}

/**
 * The explorer's lazily loaded tree: one `/api/tree?depth=1` request per opened folder; changes are
 * applied to the loaded listings in place rather than by re-fetching (a folder may hold 20,000 files).
 */
export function useFileTree(): FileTreeState {
  const [dirs, setDirs] = useState<Record<string, TreeListing>>({});
  const [failed, setFailed] = useState<Record<string, string>>({});
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set([""]));
  const loaded = useRef(new Set<string>());

  const load = useCallback(async (dir: string): Promise<void> => {
    loaded.current.add(dir);
    try {
      const tree = await fetchTree(dir === "" ? "." : dir, 1);
      if (!loaded.current.has(dir)) return; // deleted while loading
      const entries = [...tree.entries].sort(compareEntries);
      setDirs((prev) => ({ ...prev, [dir]: { entries, truncated: tree.truncated } }));
      setFailed((prev) => without(prev, dir));
    } catch (err) {
      loaded.current.delete(dir);
      setDirs((prev) => without(prev, dir));
      setFailed((prev) => ({ ...prev, [dir]: err instanceof Error ? err.message : String(err) }));
    }
  }, []);

  useEffect(() => {
    void load("");
  }, [load]);

  // A folder that is expanded but not loaded (deleted and re-created, renamed back) loads again.
  useEffect(() => {
    for (const dir of expanded) {
      if (dir === "" || loaded.current.has(dir) || failed[dir] !== undefined) continue;
      if (dirs[parentOf(dir)]?.entries.some((e) => e.path === dir)) void load(dir);
    }
  }, [expanded, dirs, failed, load]);

  const expand = useCallback(
    (dir: string) => {
      setExpanded((prev) => (prev.has(dir) ? prev : new Set(prev).add(dir)));
      if (!loaded.current.has(dir)) void load(dir);
    },
    [load],
  );

  const collapse = useCallback((dir: string) => {
    setExpanded((prev) => {
      if (!prev.has(dir)) return prev;
      const next = new Set(prev);
      next.delete(dir);
      return next;
    });
  }, []);

  const toggle = useCallback(
    (dir: string) => {
      if (expanded.has(dir)) collapse(dir);
      else expand(dir);
    },
    [expanded, expand, collapse],
  );

  const collapseAll = useCallback(() => setExpanded(new Set([""])), []);

  const refresh = useCallback(async () => {
    await Promise.all([...loaded.current].map((dir) => load(dir)));
  }, [load]);

  const reveal = useCallback(
    async (path: string) => {
      const chain = ancestorsOf(path);
      setExpanded((prev) => new Set([...prev, ...chain]));
      for (const dir of ["", ...chain]) if (!loaded.current.has(dir)) await load(dir);
    },
    [load],
  );

  const applyChange = useCallback((change: { path: string; kind: FileChangeKind }) => {
    const { path, kind } = change;
    if (kind === "change") return;
    if (kind === "unlinkDir" || kind === "unlink") {
      for (const dir of [...loaded.current]) if (isAtOrBelow(dir, path)) loaded.current.delete(dir);
      setDirs((prev) => dropBelow(prev, path));
    }
    const dir = parentOf(path);
    if (!loaded.current.has(dir)) return;
    setDirs((prev) => {
      const listing = prev[dir];
      if (!listing) return prev;
      const present = listing.entries.some((e) => e.path === path);
      if (kind === "add" || kind === "addDir") {
        if (present) return prev;
        const entry: TreeEntry = { name: baseName(path), path, type: kind === "addDir" ? "directory" : "file" };
        return { ...prev, [dir]: { ...listing, entries: insertSorted(listing.entries, entry) } };
      }
      if (!present) return prev;
      return { ...prev, [dir]: { ...listing, entries: listing.entries.filter((e) => e.path !== path) } };
    });
  }, []);

  return { dirs, failed, expanded, toggle, expand, collapse, collapseAll, refresh, reveal, applyChange };
}

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const next = { ...record };
  delete next[key];
  return next;
}

function dropBelow<T>(record: Record<string, T>, path: string): Record<string, T> {
  const keys = Object.keys(record).filter((k) => isAtOrBelow(k, path));
  if (keys.length === 0) return record;
  const next = { ...record };
  for (const k of keys) delete next[k];
  return next;
}
