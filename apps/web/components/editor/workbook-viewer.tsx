"use client";

import { useEffect, useState, type ReactNode } from "react";
import { ApiError, fetchTable, type TableResponse } from "@/lib/api";
import { downloadUrl } from "@/lib/file-ops";
import { DataTable } from "./data-table";

/**
 * A table parsed by the server (`GET /api/table`): an .xlsx workbook one sheet at a time with a sheet
 * picker, or a CSV/TSV too large for the editor (no sheets).
 */
export function WorkbookViewer({ path, version }: { path: string; version: number }): ReactNode {
  const [sheet, setSheet] = useState<string>();
  const [table, setTable] = useState<TableResponse>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    fetchTable(path, sheet).then(
      (t) => {
        if (!live) return;
        setTable(t);
        setError(undefined);
      },
      (err: unknown) => {
        if (!live) return;
        // The sheet may have been renamed or removed on disk: fall back to the first one.
        if (err instanceof ApiError && err.status === 404 && sheet !== undefined) setSheet(undefined);
        else setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      live = false;
    };
  }, [path, sheet, version]);

  if (error)
    return (
      <div className="viewer-note error">
        <p>{error}</p>
        <a href={downloadUrl(path)} download>
          Download
        </a>
      </div>
    );
  if (!table) return <div className="viewer-note">Loading table…</div>;
  return (
    <DataTable
      key={table.sheet}
      columns={table.columns}
      rows={table.rows}
      controls={
        table.sheets.length === 0 ? undefined : (
          <label className="sheet-picker">
            Sheet{" "}
            <select aria-label="Sheet" value={table.sheet} onChange={(e) => setSheet(e.target.value)}>
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
          table.truncated
            ? `first ${table.maxRows.toLocaleString()} of ${table.totalRows.toLocaleString()} rows shown`
            : "",
          // Cells the reader had to leave empty (e.g. a numeric cell holding NaN), named for the user.
          ...(table.warnings ?? []),
        ]
          .filter(Boolean)
          .join(" · ") || undefined
      }
    />
  );
}
