"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type DragEvent, type KeyboardEvent, type MouseEvent, type ReactNode } from "react";
import type { FileTreeState } from "@/hooks/use-file-tree";
import { iconOf } from "@/lib/file-kind";
import type { TreeRow } from "@/lib/tree-rows";
import { ASSETS_DIR, isGenerated, parentOf } from "@/lib/types";
import { NameInput } from "./name-input";

const ROW_HEIGHT = 22;

export type Editing = { mode: "rename"; path: string } | { mode: "create"; parent: string; type: "file" | "directory" };

export interface FileTreeProps {
  tree: FileTreeState;
  rows: TreeRow[];
  /** The active tab's path: highlighted as `.selected`. */
  selected: string | undefined;
  /** The keyboard cursor; scrolled into view whenever it changes. */
  cursor: string | undefined;
  editing: Editing | undefined;
  /** The folder a drag from the OS would upload into (highlighted). */
  dropDir: string | undefined;
  onCursor: (path: string) => void;
  onOpen: (path: string) => void;
  onStartRename: (path: string) => void;
  onDelete: (path: string) => void;
  onEditCommit: (name: string) => void;
  onEditCancel: () => void;
  onContextMenu: (e: MouseEvent, path: string | undefined) => void;
  onDragDir: (dir: string | undefined) => void;
  onDropFiles: (dir: string, files: File[]) => void;
}

/** DOM id of a row, for `aria-activedescendant`. */
const rowId = (path: string): string => `tree-row-${encodeURIComponent(path)}`;

/** The folder an upload dropped at `el` goes into: the row's folder, or the row's parent for a file. */
function dropDirAt(el: EventTarget | null, rows: TreeRow[]): string {
  const rowEl = (el as HTMLElement | null)?.closest?.("[data-path]");
  const path = rowEl?.getAttribute("data-path");
  if (!path) return "";
  const row = rows.find((r) => r.kind === "entry" && r.entry.path === path);
  return row?.kind === "entry" && row.dir ? path : parentOf(path);
}

/**
 * The explorer's tree as a virtual list: the expanded folders are flattened into rows and only the
 * rows in view (plus a few) are in the DOM, so a folder of 20,000 files opens and scrolls smoothly.
 * Keyboard: ↑ ↓ move, → expands / enters, ← collapses / goes to the parent, Enter opens, F2 renames,
 * Delete deletes.
 */
export function FileTree(props: FileTreeProps): ReactNode {
  const { tree, rows, selected, cursor, editing, dropDir } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => rows[i]?.key ?? i,
  });

  // Scroll the cursor into view once its row exists (after reveal() has loaded the parents).
  const pendingScroll = useRef<string | undefined>(undefined);
  useEffect(() => {
    pendingScroll.current = cursor;
  }, [cursor]);
  useEffect(() => {
    const target = pendingScroll.current;
    if (target === undefined) return;
    const i = rows.findIndex((r) => r.kind === "entry" && r.entry.path === target);
    if (i < 0) return;
    pendingScroll.current = undefined;
    virtualizer.scrollToIndex(i, { align: "auto" });
  }, [rows, cursor, virtualizer]);

  const entryIndex = (path: string | undefined): number =>
    path === undefined ? -1 : rows.findIndex((r) => r.kind === "entry" && r.entry.path === path);

  const moveCursor = (from: number, step: 1 | -1): void => {
    for (let i = from + step; i >= 0 && i < rows.length; i += step) {
      const r = rows[i]!;
      if (r.kind === "entry") return props.onCursor(r.entry.path);
    }
  };

  const activate = (row: Extract<TreeRow, { kind: "entry" }>): void => {
    props.onCursor(row.entry.path);
    if (row.dir) tree.toggle(row.entry.path);
    else props.onOpen(row.entry.path);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (editing) return;
    const i = entryIndex(cursor);
    const row = rows[i];
    const current = row?.kind === "entry" ? row : undefined;
    const handled = ((): boolean => {
      switch (e.key) {
        case "ArrowDown":
          moveCursor(i, 1);
          return true;
        case "ArrowUp":
          if (i < 0) moveCursor(rows.length, -1);
          else moveCursor(i, -1);
          return true;
        case "Home":
          moveCursor(-1, 1);
          return true;
        case "End":
          moveCursor(rows.length, -1);
          return true;
        case "ArrowRight":
          if (current?.dir && !current.expanded) tree.expand(current.entry.path);
          else if (current?.dir) moveCursor(i, 1);
          return current !== undefined;
        case "ArrowLeft":
          if (current?.dir && current.expanded) tree.collapse(current.entry.path);
          else if (current && parentOf(current.entry.path) !== "") props.onCursor(parentOf(current.entry.path));
          return current !== undefined;
        case "Enter":
          if (current) activate(current);
          return current !== undefined;
        case "F2":
          if (current) props.onStartRename(current.entry.path);
          return current !== undefined;
        case "Delete":
          if (current) props.onDelete(current.entry.path);
          return current !== undefined;
        default:
          return false;
      }
    })();
    if (handled) e.preventDefault();
  };

  const hasFiles = (e: DragEvent): boolean => e.dataTransfer.types.includes("Files");

  return (
    <div
      ref={scrollRef}
      className={dropDir === "" ? "file-tree drop-root" : "file-tree"}
      role="tree"
      aria-label="Files"
      tabIndex={0}
      aria-activedescendant={cursor !== undefined && entryIndex(cursor) >= 0 ? rowId(cursor) : undefined}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => {
        // The name input keeps the browser's own menu (paste, spelling).
        if (e.target instanceof HTMLInputElement) return;
        const el = (e.target as HTMLElement).closest("[data-path]");
        e.preventDefault();
        props.onContextMenu(e, el?.getAttribute("data-path") ?? undefined);
      }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        const dir = dropDirAt(e.target, rows);
        if (dir !== dropDir) props.onDragDir(dir);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) props.onDragDir(undefined);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        props.onDragDir(undefined);
        props.onDropFiles(dropDirAt(e.target, rows), Array.from(e.dataTransfer.files));
      }}
    >
      <div role="presentation" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          const style = {
            position: "absolute" as const,
            top: 0,
            left: 0,
            right: 0,
            height: ROW_HEIGHT,
            transform: `translateY(${item.start}px)`,
            paddingLeft: 8 + row.depth * 14,
          };
          if (row.kind === "note") {
            return (
              <div key={item.key} className={row.error ? "tree-error" : "tree-note"} style={style} role="presentation">
                {row.text}
              </div>
            );
          }
          if (row.kind === "create") {
            return (
              <div key={item.key} className="tree-row editing" style={style} role="presentation">
                <span className="tree-icon" aria-hidden>
                  {row.type === "directory" ? "▸" : "·"}
                </span>
                <NameInput
                  initial=""
                  label={row.type === "directory" ? "New folder name" : "New file name"}
                  onCommit={props.onEditCommit}
                  onCancel={props.onEditCancel}
                />
              </div>
            );
          }
          const { entry } = row;
          const generated = isGenerated(entry.path);
          const renaming = editing?.mode === "rename" && editing.path === entry.path;
          const inDropDir = dropDir !== undefined && dropDir !== "" && entry.path === dropDir;
          const cls = [
            "tree-row",
            entry.path === selected ? "selected" : "",
            entry.path === cursor ? "cursor" : "",
            generated ? "generated" : "",
            inDropDir ? "drop-target" : "",
          ]
            .filter(Boolean)
            .join(" ");
          return (
            <div
              key={item.key}
              id={rowId(entry.path)}
              className={cls}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-expanded={row.dir ? row.expanded : undefined}
              aria-selected={entry.path === selected}
              data-path={entry.path}
              title={entry.path}
              style={style}
              onClick={() => activate(row)}
            >
              <span className="tree-icon" aria-hidden>
                {iconOf(entry, row.expanded)}
              </span>
              {renaming ? (
                <NameInput
                  initial={entry.name}
                  label={`Rename ${entry.name}`}
                  onCommit={props.onEditCommit}
                  onCancel={props.onEditCancel}
                />
              ) : (
                <span className="tree-name">{entry.name}</span>
              )}
              {/* Dotfiles (.gitkeep) are the folder's own placeholders, not the agent's outputs. */}
              {generated && entry.path !== ASSETS_DIR && !entry.name.startsWith(".") ? (
                <span className="tree-badge" title="generated by the agent">
                  gen
                </span>
              ) : null}
            </div>
          );
        })}
      </div>
    </div>
  );
}
