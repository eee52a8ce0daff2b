"use client";

import { useMemo, type ReactNode } from "react";
import { parseDelimited } from "@/lib/csv";
import { DataTable } from "./data-table";

/** Data rows parsed from a CSV/TSV; the file itself is capped at 5 MiB by `GET /api/file`. */
const MAX_ROWS = 200_000;

/** CSV/TSV as a virtualised, sortable table (header row first). */
export function TableViewer({ content, delimiter }: { content: string; delimiter: string }): ReactNode {
  const { columns, rows, more } = useMemo(() => {
    const { rows, more } = parseDelimited(content, delimiter, MAX_ROWS + 1);
    const head = rows[0] ?? [];
    const body = rows.slice(1);
    const width = body.reduce((w, r) => Math.max(w, r.length), head.length);
    const columns = Array.from({ length: width }, (_, i) => head[i] || `column ${i + 1}`);
    return { columns, rows: body, more };
  }, [content, delimiter]);
  return (
    <DataTable
      columns={columns}
      rows={rows}
      note={more ? `first ${MAX_ROWS.toLocaleString()} rows shown` : undefined}
    />
  );
}
