"use client";

import { fuzzyMatch, normalizeQuery, type FileSearchHit } from "@textide/shared";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { iconOf } from "@/lib/file-kind";
import { searchFiles } from "@/lib/file-ops";
import { baseName } from "@/lib/types";
import "./quick-open.css";

const DEBOUNCE_MS = 80;
const LIMIT = 50;

/** `path` with the query's matched characters in <mark>, split into base name and folder. */
function Highlighted({ path, query }: { path: string; query: string }): ReactNode {
  const marked = new Set(fuzzyMatch(query, path)?.positions ?? []);
  const nameStart = path.lastIndexOf("/") + 1;
  const render = (from: number, to: number): ReactNode[] =>
    [...path.slice(from, to)].map((ch, k) =>
      marked.has(from + k) ? <mark key={from + k}>{ch}</mark> : <span key={from + k}>{ch}</span>,
    );
  return (
    <>
      <span className="qo-name">{render(nameStart, path.length)}</span>
      {nameStart > 0 ? <span className="qo-dir">{render(0, nameStart - 1)}</span> : null}
    </>
  );
}

/**
 * Quick open (Ctrl/Cmd+P): type part of a file's path, pick it with ↑ ↓ and Enter; Esc closes.
 * Results come from the server's index (`/api/files`), debounced while typing.
 */
export function QuickOpen({ onOpen }: { onOpen: (path: string) => void }): ReactNode {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<FileSearchHit[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string>();
  const listRef = useRef<HTMLUListElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "p") {
        // Capture phase: before the editor, and instead of the browser's print dialog.
        e.preventDefault();
        e.stopPropagation();
        setOpen(true);
        // Already open: an editor that grabbed focus meanwhile gives it back.
        inputRef.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);

  useEffect(() => {
    if (!open) return;
    const ctrl = new AbortController();
    const t = setTimeout(() => {
      searchFiles(query, LIMIT, ctrl.signal)
        .then((r) => {
          setHits(r.hits);
          setTruncated(r.truncated);
          setActive(0);
          setError(undefined);
        })
        .catch((err: unknown) => {
          if (!ctrl.signal.aborted) setError(err instanceof Error ? err.message : String(err));
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(t);
      ctrl.abort();
    };
  }, [open, query]);

  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  if (!open) return null;

  const close = (): void => {
    setOpen(false);
    setQuery("");
    setHits([]);
  };
  const choose = (hit: FileSearchHit | undefined): void => {
    if (!hit) return;
    close();
    onOpen(hit.path);
  };
  const q = normalizeQuery(query);

  return (
    <div className="qo-backdrop" onMouseDown={close}>
      <div
        className="qo"
        role="dialog"
        aria-modal="true"
        aria-label="Quick open"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <input
          ref={inputRef}
          className="qo-input"
          autoFocus
          placeholder="Search files by name (fuzzy) — ↑ ↓ to pick, Enter to open, Esc to close"
          aria-label="File name"
          aria-controls="qo-list"
          aria-activedescendant={hits[active] ? `qo-${active}` : undefined}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") close();
            else if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, hits.length - 1));
            else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
            else if (e.key === "Enter") choose(hits[active]);
            else return;
            e.preventDefault();
          }}
        />
        <ul id="qo-list" ref={listRef} className="qo-list" role="listbox" aria-label="Matching files">
          {hits.map((hit, i) => (
            <li
              key={hit.path}
              id={`qo-${i}`}
              data-index={i}
              data-path={hit.path}
              role="option"
              aria-selected={i === active}
              className={i === active ? "qo-item active" : "qo-item"}
              onMouseMove={() => setActive(i)}
              onClick={() => choose(hit)}
            >
              <span className="qo-icon" aria-hidden>
                {iconOf({ name: baseName(hit.path), path: hit.path, type: "file" }, false)}
              </span>
              <Highlighted path={hit.path} query={q} />
            </li>
          ))}
        </ul>
        <div className="qo-foot">
          {error ??
            (hits.length === 0
              ? query === ""
                ? "Type to search every file in project_root and generated_assets."
                : "No matching files."
              : `${hits.length}${truncated ? "+" : ""} ${hits.length === 1 && !truncated ? "file" : "files"}`)}
        </div>
      </div>
    </div>
  );
}
