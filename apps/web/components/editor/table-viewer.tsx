"use client";

import { useMemo, useState, type ReactNode } from "react";
import { compareCells, parseDelimited } from "@/lib/csv";

const MAX_ROWS = 1000;

/** CSV/TSV as a table: the header row plus the first 1,000 data rows, sortable by clicking a header. */
export function TableViewer({ content, delimiter }: { content: string; delimiter: string }): ReactNode {
  const { header, body, more } = useMemo(() => {
    const { rows, more } = parseDelimited(content, delimiter, MAX_ROWS + 1);
    return { header: rows[0] ?? [], body: rows.slice(1), more };
  }, [content, delimiter]);
  const [sort, setSort] = useState<{ col: number; dir: 1 | -1 }>();
  const sorted = useMemo(() => {
    if (!sort) return body;
    return [...body].sort((a, b) => sort.dir * compareCells(a[sort.col] ?? "", b[sort.col] ?? ""));
  }, [body, sort]);
  const onSort = (col: number): void =>
    setSort((s) => (s?.col === col ? (s.dir === 1 ? { col, dir: -1 } : undefined) : { col, dir: 1 }));
  return (
    <div className="viewer table-viewer">
      <div className="toolbar">
        <span>
          {body.length} row{body.length === 1 ? "" : "s"}
          {more ? ` (first ${MAX_ROWS} shown)` : ""} · {header.length} columns
        </span>
      </div>
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th className="rownum">#</th>
              {header.map((h, i) => (
                <th
                  key={i}
                  onClick={() => onSort(i)}
                  aria-sort={sort?.col === i ? (sort.dir === 1 ? "ascending" : "descending") : "none"}
                >
                  {h}
                  <span className="sort-mark">{sort?.col === i ? (sort.dir === 1 ? " ▲" : " ▼") : ""}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sorted.map((row, r) => (
              <tr key={r}>
                <td className="rownum">{r + 1}</td>
                {header.map((_, c) => (
                  <td key={c}>{row[c] ?? ""}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
