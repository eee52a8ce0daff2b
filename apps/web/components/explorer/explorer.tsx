"use client";

import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { FileTreeState } from "@/hooks/use-file-tree";
import { useUploads } from "@/hooks/use-uploads";
import { createEntry, deleteEntry, downloadUrl, renameEntry } from "@/lib/file-ops";
import { joinPath, movedPath } from "@/lib/paths";
import { flattenTree, type TreeRow } from "@/lib/tree-rows";
import { ASSETS_DIR, isDirectory, isGenerated, parentOf } from "@/lib/types";
import { ContextMenu, type MenuItem } from "./context-menu";
import { FileTree, type Editing } from "./file-tree";
import { Icon, type IconName } from "./icons";
import { UploadStatus } from "./upload-status";
import "./explorer.css";

export interface ExplorerProps {
  tree: FileTreeState;
  /** The active tab's path. */
  selected: string | undefined;
  onOpen: (path: string) => void;
  /** A file or folder was renamed or moved: open tabs follow it. */
  onRenamed: (from: string, to: string) => void;
  /** A file or folder was deleted: its tabs close. */
  onDeleted: (path: string) => void;
}

interface Message {
  kind: "error" | "info";
  text: string;
}

const UPLOAD_INTO_ASSETS = `Uploads go into the project; ${ASSETS_DIR}/ holds the agent's outputs. Drop the files on a project folder instead.`;

/** The explorer panel: header actions, the virtual file tree, its context menu, and uploads. */
export function Explorer({ tree, selected, onOpen, onRenamed, onDeleted }: ExplorerProps): ReactNode {
  const [cursor, setCursor] = useState<string>();
  const [editing, setEditing] = useState<Editing>();
  const [menu, setMenu] = useState<{ x: number; y: number; path: string | undefined }>();
  const [dropDir, setDropDir] = useState<string>();
  const [message, setMessage] = useState<Message>();
  const fileInput = useRef<HTMLInputElement>(null);
  const uploadDir = useRef("");
  const { applyChange, reveal, expand } = tree;
  const closeMenu = useCallback(() => setMenu(undefined), []);

  useEffect(() => {
    if (selected !== undefined) setCursor(selected);
  }, [selected]);

  useEffect(() => {
    if (message?.kind !== "info") return;
    const t = setTimeout(() => setMessage(undefined), 6000);
    return () => clearTimeout(t);
  }, [message]);

  const creating = editing?.mode === "create" ? editing : undefined;
  const rows = useMemo(
    () => flattenTree(tree.dirs, tree.failed, tree.expanded, creating),
    [tree.dirs, tree.failed, tree.expanded, creating],
  );

  const rowOf = useCallback(
    (path: string | undefined): Extract<TreeRow, { kind: "entry" }> | undefined => {
      const r = path === undefined ? undefined : rows.find((x) => x.kind === "entry" && x.entry.path === path);
      return r?.kind === "entry" ? r : undefined;
    },
    [rows],
  );

  /** The folder new entries and uploads go into: the cursor's folder, or the top. */
  const targetDir = (path: string | undefined): string => {
    const row = rowOf(path);
    if (!row) return "";
    return row.dir ? row.entry.path : parentOf(row.entry.path);
  };

  const fail = (err: unknown): void =>
    setMessage({ kind: "error", text: err instanceof Error ? err.message : String(err) });

  const startCreate = (type: "file" | "directory", dir: string): void => {
    if (dir !== "") expand(dir);
    setEditing({ mode: "create", parent: dir, type });
  };

  const commitEdit = (name: string): void => {
    const edit = editing;
    setEditing(undefined);
    if (!edit) return;
    if (edit.mode === "create") {
      const path = joinPath(edit.parent, name);
      createEntry(path, edit.type)
        .then(() => {
          applyChange({ path, kind: edit.type === "directory" ? "addDir" : "add" });
          setCursor(path);
          void reveal(path);
          if (edit.type === "file") onOpen(path);
        })
        .catch(fail);
      return;
    }
    const to = joinPath(parentOf(edit.path), name);
    const wasDir = rowOf(edit.path)?.dir ?? false;
    renameEntry(edit.path, to)
      .then(() => {
        applyChange({ path: edit.path, kind: wasDir ? "unlinkDir" : "unlink" });
        applyChange({ path: to, kind: wasDir ? "addDir" : "add" });
        setCursor((c) => (c === undefined ? c : movedPath(c, edit.path, to)));
        onRenamed(edit.path, to);
      })
      .catch(fail);
  };

  const remove = (path: string): void => {
    const dir = rowOf(path)?.dir ?? false;
    const what = dir ? `the folder ${path} and everything in it` : path;
    if (!window.confirm(`Delete ${what}? This cannot be undone.`)) return;
    deleteEntry(path)
      .then(() => {
        applyChange({ path, kind: dir ? "unlinkDir" : "unlink" });
        onDeleted(path);
        setMessage({ kind: "info", text: `Deleted ${path}.` });
      })
      .catch(fail);
  };

  const uploads = useUploads({
    confirmOverwrite: (path) => window.confirm(`${path} already exists. Replace it with the uploaded file?`),
    onUploaded: (path) => {
      applyChange({ path, kind: "add" });
      void reveal(path);
    },
  });

  const uploadInto = (dir: string, files: File[]): void => {
    if (files.length === 0) return;
    if (isGenerated(dir)) {
      setMessage({ kind: "error", text: UPLOAD_INTO_ASSETS });
      return;
    }
    setMessage(undefined);
    void uploads.upload(dir, files);
  };

  const copyPath = (path: string): void => {
    navigator.clipboard
      .writeText(path)
      .then(() => setMessage({ kind: "info", text: `Copied ${path}` }))
      .catch(() => setMessage({ kind: "error", text: `Could not use the clipboard; the path is ${path}` }));
  };

  const menuItems = (path: string | undefined): MenuItem[] => {
    const row = rowOf(path);
    const dir = targetDir(path);
    const items: MenuItem[] = [
      { label: "New File", onSelect: () => startCreate("file", dir) },
      { label: "New Folder", onSelect: () => startCreate("directory", dir) },
    ];
    if (!row || path === undefined) return items;
    const isRoot = path === ASSETS_DIR;
    return [
      ...items,
      { label: "Rename", disabled: isRoot, onSelect: () => setEditing({ mode: "rename", path }) },
      { label: "Delete", disabled: isRoot, danger: true, onSelect: () => remove(path) },
      {
        label: "Download",
        disabled: isDirectory(row.entry),
        onSelect: () => {
          const a = document.createElement("a");
          a.href = downloadUrl(path);
          a.download = "";
          a.click();
        },
      },
      { label: "Copy path", onSelect: () => copyPath(path) },
    ];
  };

  const header: { label: string; icon: IconName; onClick: () => void }[] = [
    { label: "New File", icon: "new-file", onClick: () => startCreate("file", targetDir(cursor)) },
    { label: "New Folder", icon: "new-folder", onClick: () => startCreate("directory", targetDir(cursor)) },
    {
      label: "Upload",
      icon: "upload",
      onClick: () => {
        uploadDir.current = targetDir(cursor);
        if (isGenerated(uploadDir.current)) setMessage({ kind: "error", text: UPLOAD_INTO_ASSETS });
        else fileInput.current?.click();
      },
    },
    { label: "Refresh", icon: "refresh", onClick: () => void tree.refresh() },
    { label: "Collapse all", icon: "collapse-all", onClick: () => tree.collapseAll() },
  ];

  return (
    <section className="explorer" aria-label="Explorer">
      <header className="panel-header">
        <span>Explorer</span>
        <span className="explorer-actions">
          {header.map((b) => (
            <button
              key={b.label}
              type="button"
              className="icon-button"
              title={b.label}
              aria-label={b.label}
              onClick={b.onClick}
            >
              <Icon name={b.icon} />
            </button>
          ))}
        </span>
      </header>
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(e) => {
          uploadInto(uploadDir.current, Array.from(e.target.files ?? []));
          e.target.value = "";
        }}
      />
      {message ? (
        <div className={`explorer-message ${message.kind}`} role={message.kind === "error" ? "alert" : "status"}>
          <span>{message.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => setMessage(undefined)}>
            ×
          </button>
        </div>
      ) : null}
      <FileTree
        tree={tree}
        rows={rows}
        selected={selected}
        cursor={cursor}
        editing={editing}
        dropDir={dropDir}
        onCursor={setCursor}
        onOpen={onOpen}
        onStartRename={(path) => path !== ASSETS_DIR && setEditing({ mode: "rename", path })}
        onDelete={(path) => path !== ASSETS_DIR && remove(path)}
        onEditCommit={commitEdit}
        onEditCancel={() => setEditing(undefined)}
        onContextMenu={(e, path) => {
          if (path !== undefined) setCursor(path);
          setMenu({ x: e.clientX, y: e.clientY, path });
        }}
        onDragDir={setDropDir}
        onDropFiles={uploadInto}
      />
      {dropDir !== undefined ? (
        <div className={isGenerated(dropDir) ? "drop-hint refused" : "drop-hint"} role="status">
          {isGenerated(dropDir)
            ? UPLOAD_INTO_ASSETS
            : `Drop to upload into ${dropDir === "" ? "the project" : dropDir}/`}
        </div>
      ) : null}
      <UploadStatus items={uploads.items} onClear={uploads.clear} />
      {menu ? <ContextMenu x={menu.x} y={menu.y} items={menuItems(menu.path)} onClose={closeMenu} /> : null}
    </section>
  );
}
