"use client";

import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { ApiError, fetchTable, type TableResponse } from "@/lib/api";
import { downloadUrl } from "@/lib/file-ops";
import { nextSort, type SortState } from "@/lib/table-sort";
import { DataTable, type LoadedRow } from "./data-table";

/** Rows per request: a screenful several times over, small enough to arrive at once. */
const PAGE_ROWS = 200;

/** What one view of the table is: a sheet in an order. Pages of another view are never mixed in. */
interface View {
  key: string;
  first: TableResponse;
  pages: Map<number, LoadedRow[]>;
}

/**
 * A table read by the server (`GET /api/table`) a page at a time as the user scrolls: an .xlsx workbook
 * one sheet at a time with a sheet picker, or a CSV/TSV file of any size. Sorting is done by the server.
 */
export function TableViewer({ path, version, note }: { path: string; version: number; note?: string }): ReactNode {
  const [sheet, setSheet] = useState<string>();
  const [sort, setSort] = useState<SortState>();
  const [view, setView] = useState<View>();
  const [error, setError] = useState<string>();
  const [, setLoaded] = useState(0);
  const key = `${path}\n${version}\n${sheet ?? ""}\n${sort ? `${sort.col}:${sort.dir}` : ""}`;
  const loading = useRef(new Set<number>());
  const viewRef = useRef<View | undefined>(undefined);
  viewRef.current = view;

  useEffect(() => {
    const abort = new AbortController();
    loading.current = new Set([0]);
    fetchTable(path, { sheet, offset: 0, limit: PAGE_ROWS, sort }, abort.signal).then(
      (first) => {
        setView({ key, first, pages: new Map([[0, loadedRows(first)]]) });
        setError(undefined);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        // The sheet may have been renamed or removed on disk: fall back to the first one.
        if (err instanceof ApiError && err.status === 404 && sheet !== undefined) setSheet(undefined);
        else setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => abort.abort();
  }, [key]);

  const onRange = useCallback(
    (first: number, last: number) => {
      const current = viewRef.current;
      if (!current || current.key !== key) return;
      for (let p = Math.floor(first / PAGE_ROWS); p <= Math.floor(last / PAGE_ROWS); p++) {
        if (current.pages.has(p) || loading.current.has(p)) continue;
        loading.current.add(p);
        fetchTable(path, { sheet, offset: p * PAGE_ROWS, limit: PAGE_ROWS, sort }).then(
          (page) => {
            loading.current.delete(p);
            if (viewRef.current?.key !== key) return;
            viewRef.current.pages.set(p, loadedRows(page));
            setLoaded((n) => n + 1);
          },
          () => loading.current.delete(p), // scrolling past it again asks again
        );
      }
    },
    // `view` too: when a new view arrives, the rows already in view ask for its pages.
    [key, path, sheet, sort, view],
  );

  if (error)
    return (
      <div className="viewer-note error">
        <p>{error}</p>
        <a href={downloadUrl(path)} download>
          Download
        </a>
      </div>
    );
  if (!view) return <div className="viewer-note">Loading table…</div>;
  const table = view.first;
  const sortable = table.totalRows <= table.maxSortRows;
  const pending = view.key !== key;
  return (
    <DataTable
      key={`${table.path}\n${table.sheet}`}
      columns={table.columns}
      rowCount={table.totalRows}
      rowAt={(i) => view.pages.get(Math.floor(i / PAGE_ROWS))?.[i % PAGE_ROWS]}
      sample={table.rows}
      onRange={onRange}
      sort={sort}
      onSort={sortable ? (col) => setSort((s) => nextSort(s, col)) : undefined}
      sortHint={
        sortable ? "click to sort" : `sorting works on tables of up to ${table.maxSortRows.toLocaleString()} rows`
      }
      controls={
        table.sheets.length === 0 ? undefined : (
          <label className="sheet-picker">
            Sheet{" "}
            <select
              aria-label="Sheet"
              value={table.sheet}
              onChange={(e) => {
                setSort(undefined);
                setSheet(e.target.value);
              }}
            >
              {table.sheets.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        )
      }
      note={
        [
          pending ? (sort ? "sorting…" : "loading…") : "",
          note ?? "",
          // Cells the reader had to leave empty (e.g. a numeric cell holding NaN), named for the user.
          ...(table.warnings ?? []),
        ]
          .filter(Boolean)
          .join(" · ") || undefined
      }
    />
  );
}

function loadedRows(page: TableResponse): LoadedRow[] {
  return page.rows.map((cells, i) => ({ cells, rowNumber: page.rowNumbers[i] ?? page.offset + i }));
}
