"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, useState, type ReactNode } from "react";
import { nextSort, sortedOrder, type SortState } from "@/lib/table-sort";

const ROW_HEIGHT = 24;
const CHAR_PX = 7.2;

/** Column widths from the header and a sample of rows, so that rows scrolling into view never reflow the table. */
function columnWidths(columns: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const sample = rows.slice(0, 200);
  return columns.map((h, c) => {
    // Header text is bold and carries the sort mark: count it wider than cell text.
    let chars = h.length * 1.15 + 3;
    for (const r of sample) chars = Math.max(chars, (r[c] ?? "").length);
    return Math.round(Math.min(360, Math.max(56, chars * CHAR_PX + 18)));
  });
}

export interface DataTableProps {
  columns: readonly string[];
  rows: readonly (readonly string[])[];
  /** Shown in the toolbar after the row count (e.g. "first 100,000 of 250,000 rows"). */
  note?: ReactNode;
  /** Extra toolbar controls (a sheet picker). */
  controls?: ReactNode;
}

/** A virtualised, sortable table with a sticky header: only the rows in view are in the DOM. */
export function DataTable({ columns, rows, note, controls }: DataTableProps): ReactNode {
  const [sort, setSort] = useState<SortState>();
  const order = useMemo(() => sortedOrder(rows, sort), [rows, sort]);
  const widths = useMemo(() => columnWidths(columns, rows), [columns, rows]);
  const numWidth = Math.round(Math.max(2, String(rows.length).length) * CHAR_PX + 24);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: order.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const totalWidth = numWidth + widths.reduce((a, b) => a + b, 0);

  return (
    <div className="viewer table-viewer">
      <div className="toolbar">
        {controls}
        <span className="row-count">
          {rows.length.toLocaleString()} row{rows.length === 1 ? "" : "s"} · {columns.length} column
          {columns.length === 1 ? "" : "s"}
        </span>
        {note ? <span className="table-note">{note}</span> : null}
      </div>
      <div className="table-scroll" ref={scrollRef}>
        <table style={{ width: totalWidth }}>
          <colgroup>
            <col style={{ width: numWidth }} />
            {widths.map((w, i) => (
              <col key={i} style={{ width: w }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              <th className="rownum" title="Row number in the file">
                #
              </th>
              {columns.map((h, i) => (
                <th
                  key={i}
                  title={`${h} — click to sort`}
                  onClick={() => setSort((s) => nextSort(s, i))}
                  aria-sort={sort?.col === i ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}
                >
                  {h}
                  <span className="sort-mark">{sort?.col === i ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 ? (
              <tr aria-hidden style={{ height: padTop }}>
                <td colSpan={columns.length + 1} />
              </tr>
            ) : null}
            {items.map((v) => {
              const index = order[v.index]!;
              const row = rows[index]!;
              return (
                <tr key={index} data-row={index} style={{ height: ROW_HEIGHT }}>
                  <td className="rownum">{index + 1}</td>
                  {columns.map((_, c) => (
                    <td key={c} title={row[c]}>
                      {row[c] ?? ""}
                    </td>
                  ))}
                </tr>
              );
            })}
            {padBottom > 0 ? (
              <tr aria-hidden style={{ height: padBottom }}>
                <td colSpan={columns.length + 1} />
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </div>
  );
}
