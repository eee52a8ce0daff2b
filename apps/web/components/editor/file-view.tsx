"use client";

import dynamic from "next/dynamic";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { ApiError, fetchFile, saveFile } from "@/lib/api";
import { downloadUrl } from "@/lib/file-ops";
import { languageOf, viewerKind } from "@/lib/file-kind";
import { isVegaLiteSpec } from "@/lib/vega-spec";
import { ConflictDialog } from "./conflict-dialog";
import { ImageViewer } from "./image-viewer";
import { MarkdownPreview } from "./markdown-preview";
import { TableViewer } from "./table-viewer";

const CodeEditor = dynamic(() => import("./code-editor"), {
  ssr: false,
  loading: () => <div className="viewer-note">Loading editor…</div>,
});

const VegaLiteChart = dynamic(() => import("./vega-lite-chart"), {
  ssr: false,
  loading: () => <div className="viewer-note">Loading chart…</div>,
});

/** A rendered view offered beside the Monaco source, with the labels of its toggle. */
type Rendered = { kind: "table" | "markdown" | "chart"; label: string };

function renderedView(kind: string, path: string, content: string): Rendered | undefined {
  if (kind === "table") return { kind: "table", label: "Table" };
  if (kind === "markdown") return { kind: "markdown", label: "Preview" };
  if (kind === "json" && isVegaLiteSpec(path, content)) return { kind: "chart", label: "Chart" };
  return undefined;
}

export interface FileViewProps {
  path: string;
  /** Bumped when the file changes on disk. */
  version: number;
  line?: number;
  theme: "light" | "dark";
  onDirtyChange: (path: string, dirty: boolean) => void;
  /** Opens another workspace file (links in Markdown). */
  onOpen: (path: string) => void;
}

interface Loaded {
  content: string;
  etag: string;
  /** Counts loads from disk (the editor resets on each, even to the same text). */
  revision: number;
}

type Status = { kind: "idle" } | { kind: "saving" } | { kind: "saved" } | { kind: "error"; message: string };

/** One open tab: fetches the file and picks the viewer by extension. */
export function FileView({ path, version, line, theme, onDirtyChange, onOpen }: FileViewProps): ReactNode {
  const kind = viewerKind(path);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<{ message: string; status?: number }>();
  const [draft, setDraft] = useState<string>();
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  /** A save was refused: the file changed on disk, or was deleted there. */
  const [conflict, setConflict] = useState<"changed" | "deleted">();
  const [showSource, setShowSource] = useState(false);
  // A request to open at a line (system_open_file, a search hit) is about the source, not the rendering.
  useEffect(() => {
    if (line !== undefined) setShowSource(true);
  }, [line]);
  const dirty = draft !== undefined && loaded !== undefined && draft !== loaded.content;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  const load = useCallback(async () => {
    try {
      const f = await fetchFile(path);
      setLoaded((prev) => ({ content: f.content, etag: f.etag, revision: (prev?.revision ?? 0) + 1 }));
      setDraft(undefined);
      setError(undefined);
    } catch (err) {
      setError(
        err instanceof ApiError
          ? { message: `${err.message} (${err.code})`, status: err.status }
          : { message: String(err) },
      );
    }
  }, [path]);

  useEffect(() => {
    if (kind === "image" || kind === "binary" || kind === "workbook") return;
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
        setLoaded((prev) => ({ content, etag: r.etag, revision: prev?.revision ?? 0 }));
        setDraft(undefined);
        setStatus({ kind: "saved" });
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          setStatus({ kind: "idle" });
          // No current etag: there is no file on disk any more.
          setConflict(err.details.deleted === true || err.details.currentEtag === null ? "deleted" : "changed");
        } else setStatus({ kind: "error", message: err instanceof Error ? err.message : String(err) });
      }
    },
    [draft, loaded, path],
  );

  if (kind === "image") return <ImageViewer path={path} version={version} />;
  if (kind === "workbook") return <TableViewer path={path} version={version} />;
  if (kind === "binary")
    return (
      <div className="viewer-note">
        <p>
          <code>{path}</code> is a binary file with no viewer yet.
        </p>
        <a href={downloadUrl(path)} download>
          Download
        </a>
      </div>
    );
  // Beyond the editor's 5 MiB: tables open in the server-side table viewer, anything else can be downloaded.
  if (error?.status === 413 && kind === "table") return <TableViewer path={path} version={version} />;
  if (error?.status === 413)
    return (
      <div className="viewer-note">
        <p>
          <code>{path}</code> is too large to open in the editor (over 5 MiB).
        </p>
        <a href={downloadUrl(path)} download>
          Download
        </a>
      </div>
    );
  if (error) return <div className="viewer-note error">{error.message}</div>;
  if (!loaded) return <div className="viewer-note">Loading…</div>;

  const text = draft ?? loaded.content;
  // Decided on the text as loaded, so that editing the spec in Source does not make the toggle vanish.
  const rendered = renderedView(kind, path, loaded.content);
  const showRendered = rendered !== undefined && !showSource;
  return (
    <div className="viewer file-view">
      <div className="toolbar">
        <span className="file-path">{path}</span>
        {rendered ? (
          <div className="view-toggle" role="group" aria-label="View">
            <button type="button" aria-pressed={showRendered} onClick={() => setShowSource(false)}>
              {rendered.label}
            </button>
            <button type="button" aria-pressed={!showRendered} onClick={() => setShowSource(true)}>
              Source
            </button>
          </div>
        ) : null}
        <span className="spacer" />
        <span className="save-status" data-status={status.kind}>
          {dirty ? "● unsaved" : status.kind === "saving" ? "saving…" : status.kind === "saved" ? "saved" : ""}
          {status.kind === "error" ? `save failed: ${status.message}` : ""}
        </span>
        <button type="button" onClick={() => void save()} disabled={!dirty} title="Save (Ctrl/Cmd+S)">
          Save
        </button>
      </div>
      <div className={showRendered ? `viewer-body rendered-${rendered.kind}` : "viewer-body"}>
        {showRendered && rendered.kind === "table" ? (
          // The server reads the table (one reader with exec_run_js's readTable): it shows the saved file.
          <TableViewer
            path={path}
            version={version}
            note={dirty ? "showing the saved file: save to see your edits here" : undefined}
          />
        ) : showRendered && rendered.kind === "markdown" ? (
          <MarkdownPreview path={path} source={text} onOpen={onOpen} />
        ) : showRendered && rendered.kind === "chart" ? (
          <VegaLiteChart path={path} source={text} theme={theme} />
        ) : (
          <CodeEditor
            path={path}
            language={languageOf(path)}
            value={loaded.content}
            revision={loaded.revision}
            initialValue={text}
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
          mine={text}
          language={languageOf(path)}
          theme={theme}
          deleted={conflict === "deleted"}
          onReload={() => {
            setConflict(undefined);
            void load();
          }}
          onOverwrite={() => {
            setConflict(undefined);
            void save(true);
          }}
          onCancel={() => setConflict(undefined)}
        />
      ) : null}
    </div>
  );
}
