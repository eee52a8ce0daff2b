"use client";

import { observeElementOffset, useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, type ReactNode } from "react";
import type { SortState } from "@/lib/table-sort";

const ROW_HEIGHT = 24;
const CHAR_PX = 7.2;
/**
 * Browsers cap an element's height (Chromium about 33.5 M px, Firefox about 17.9 M px). A table taller
 * than this (over 333,333 rows) is given this height, and its scroll position is scaled to rows.
 */
const MAX_SCROLL_PX = 8_000_000;

/** Column widths from the header and the first rows, so that rows scrolling into view never reflow the table. */
function columnWidths(columns: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const sample = rows.slice(0, 200);
  return columns.map((h, c) => {
    // Header text is bold and carries the sort mark: count it wider than cell text.
    let chars = h.length * 1.15 + 3;
    for (const r of sample) chars = Math.max(chars, (r[c] ?? "").length);
    return Math.round(Math.min(360, Math.max(56, chars * CHAR_PX + 18)));
  });
}

/** A loaded row: its cells and its 0-based position among the file's data rows. */
export interface LoadedRow {
  cells: readonly string[];
  rowNumber: number;
}

export interface DataTableProps {
  columns: readonly string[];
  /** Rows in the table (all of them, loaded or not). */
  rowCount: number;
  /** The row at a position of the (sorted) table, or undefined while its page loads. */
  rowAt: (index: number) => LoadedRow | undefined;
  /** Rows of the first page, for column widths. */
  sample: readonly (readonly string[])[];
  /** Called with the positions in view (plus overscan) whenever they change. */
  onRange: (first: number, last: number) => void;
  sort: SortState | undefined;
  /** Undefined when the table is too large to sort (the reason is shown as the header's title). */
  onSort: ((col: number) => void) | undefined;
  sortHint: string;
  /** Shown in the toolbar after the row count. */
  note?: ReactNode;
  /** Extra toolbar controls (a sheet picker). */
  controls?: ReactNode;
}

/**
 * A virtualised table with a sticky header over rows that are loaded a page at a time: only the rows in
 * view are in the DOM, and rows whose page has not arrived yet show as placeholders.
 */
export function DataTable(props: DataTableProps): ReactNode {
  const { columns, rowCount, rowAt, sample, onRange, sort, onSort, sortHint, note, controls } = props;
  const widths = useMemo(() => columnWidths(columns, sample), [columns, sample]);
  const numWidth = Math.round(Math.max(2, String(rowCount).length) * CHAR_PX + 24);
  const scrollRef = useRef<HTMLDivElement>(null);
  const fullHeight = rowCount * ROW_HEIGHT;
  const domHeight = Math.min(fullHeight, MAX_SCROLL_PX);
  /** Virtual pixels per scrolled pixel: the scrolled range maps onto the table's full height. */
  const scaleOf = (el: HTMLElement | null): number => {
    if (fullHeight <= MAX_SCROLL_PX || !el) return 1;
    const view = el.clientHeight;
    return (fullHeight - view) / Math.max(1, domHeight - view);
  };
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    observeElementOffset: (instance, cb) =>
      observeElementOffset(instance, (offset, scrolling) => cb(offset * scaleOf(scrollRef.current), scrolling)),
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (last >= first) onRange(first, last);
  }, [first, last, onRange]);
  // Rows are drawn where the scroll position is: the first item's distance from the (virtual) top of
  // the view, added to the real scroll position. Unscaled this is just the item's start.
  const virtualTop = virtualizer.scrollOffset ?? 0;
  const padTop = items[0] ? Math.max(0, virtualTop / scaleOf(scrollRef.current) + items[0].start - virtualTop) : 0;
  const padBottom = Math.max(0, domHeight - padTop - items.length * ROW_HEIGHT);
  const totalWidth = numWidth + widths.reduce((a, b) => a + b, 0);

  return (
    <div className="viewer table-viewer">
      <div className="toolbar">
        {controls}
        <span className="row-count" title="Every row of the file is counted, not estimated">
          {rowCount.toLocaleString()} row{rowCount === 1 ? "" : "s"} · {columns.length} column
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
                  title={`${h} — ${sortHint}`}
                  onClick={onSort ? () => onSort(i) : undefined}
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
              const row = rowAt(v.index);
              if (!row)
                return (
                  <tr key={`p${v.index}`} className="row-loading" aria-busy style={{ height: ROW_HEIGHT }}>
                    <td className="rownum">…</td>
                    <td colSpan={columns.length} />
                  </tr>
                );
              return (
                <tr key={row.rowNumber} data-row={row.rowNumber} style={{ height: ROW_HEIGHT }}>
                  <td className="rownum">{row.rowNumber + 1}</td>
                  {columns.map((_, c) => (
                    <td key={c} title={row.cells[c]}>
                      {row.cells[c] ?? ""}
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
