"use client";

import dynamic from "next/dynamic";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { ApiError, fetchFile, rawUrl, saveFile } from "@/lib/api";
import { languageOf, viewerKind } from "@/lib/file-kind";
import { ConflictDialog } from "./conflict-dialog";
import { ImageViewer } from "./image-viewer";
import { TableViewer } from "./table-viewer";

const CodeEditor = dynamic(() => import("./code-editor"), {
  ssr: false,
  loading: () => <div className="viewer-note">Loading editor…</div>,
});

export interface FileViewProps {
  path: string;
  /** Bumped when the file changes on disk. */
  version: number;
  line?: number;
  theme: "light" | "dark";
  onDirtyChange: (path: string, dirty: boolean) => void;
}

interface Loaded {
  content: string;
  etag: string;
}

type Status = { kind: "idle" } | { kind: "saving" } | { kind: "saved" } | { kind: "error"; message: string };

/** One open tab: fetches the file and picks the viewer by extension. */
export function FileView({ path, version, line, theme, onDirtyChange }: FileViewProps): ReactNode {
  const kind = viewerKind(path);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [draft, setDraft] = useState<string>();
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [conflict, setConflict] = useState(false);
  const [showText, setShowText] = useState(false);
  const dirty = draft !== undefined && loaded !== undefined && draft !== loaded.content;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  const load = useCallback(async () => {
    try {
      const f = await fetchFile(path);
      setLoaded({ content: f.content, etag: f.etag });
      setDraft(undefined);
      setError(undefined);
    } catch (err) {
      setError(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
    }
  }, [path]);

  useEffect(() => {
    if (kind === "image" || kind === "binary") return;
    // Keep unsaved edits: a change on disk then surfaces as a conflict on save.
    if (!dirtyRef.current) void load();
  }, [kind, load, version]);

  useEffect(() => onDirtyChange(path, dirty), [path, dirty, onDirtyChange]);

  const save = useCallback(
    async (force = false) => {
      if (!loaded) return;
      const content = draft ?? loaded.content;
      setStatus({ kind: "saving" });
      try {
        const r = await saveFile(path, content, force ? undefined : loaded.etag);
        setLoaded({ content, etag: r.etag });
        setDraft(undefined);
        setStatus({ kind: "saved" });
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          setStatus({ kind: "idle" });
          setConflict(true);
        } else setStatus({ kind: "error", message: err instanceof Error ? err.message : String(err) });
      }
    },
    [draft, loaded, path],
  );

  if (kind === "image") return <ImageViewer path={path} version={version} />;
  if (kind === "binary")
    return (
      <div className="viewer-note">
        <p>
          <code>{path}</code> is a binary file with no viewer yet.
        </p>
        <a href={rawUrl(path)} download>
          Download
        </a>
      </div>
    );
  if (error) return <div className="viewer-note error">{error}</div>;
  if (!loaded) return <div className="viewer-note">Loading…</div>;

  const tableMode = kind === "table" && !showText;
  return (
    <div className="viewer file-view">
      <div className="toolbar">
        <span className="file-path">{path}</span>
        {kind === "table" ? (
          <button type="button" onClick={() => setShowText((s) => !s)}>
            {showText ? "Table" : "Text"}
          </button>
        ) : null}
        <span className="spacer" />
        <span className="save-status" data-status={status.kind}>
          {dirty ? "● unsaved" : status.kind === "saving" ? "saving…" : status.kind === "saved" ? "saved" : ""}
          {status.kind === "error" ? `save failed: ${status.message}` : ""}
        </span>
        {!tableMode ? (
          <button type="button" onClick={() => void save()} disabled={!dirty} title="Save (Ctrl/Cmd+S)">
            Save
          </button>
        ) : null}
      </div>
      <div className="viewer-body">
        {tableMode ? (
          <TableViewer content={draft ?? loaded.content} delimiter={path.toLowerCase().endsWith(".tsv") ? "\t" : ","} />
        ) : (
          <CodeEditor
            path={path}
            language={languageOf(path)}
            value={loaded.content}
            initialValue={draft ?? loaded.content}
            theme={theme}
            line={line}
            onChange={setDraft}
            onSave={() => void save()}
          />
        )}
      </div>
      {conflict ? (
        <ConflictDialog
          path={path}
          onReload={() => {
            setConflict(false);
            void load();
          }}
          onOverwrite={() => {
            setConflict(false);
            void save(true);
          }}
          onCancel={() => setConflict(false)}
        />
      ) : null}
    </div>
  );
}
