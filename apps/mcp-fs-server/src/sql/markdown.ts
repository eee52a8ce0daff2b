import type { Json } from "@duckdb/node-api";
import { SQL_LIMITS } from "./limits.js";
import type { SqlResult } from "./engine.js";

/**
 * A bounded Markdown preview of a result for the model's text content: the first rows, each cell
 * clipped, then one line with the row count. The full rows travel once, in structuredContent.
 */
export function markdownTable(r: SqlResult): string {
  if (r.columns.length === 0) return "(no columns)";
  const head = `| ${r.columns.map((c) => cell(c.name)).join(" | ")} |`;
  const rule = `| ${r.columns.map(() => "---").join(" | ")} |`;
  const body = r.rows.slice(0, SQL_LIMITS.previewRows).map((row) => `| ${row.map(cell).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

export function rowCountLine(r: SqlResult, maxRows: number): string {
  const shown = r.rows.length > SQL_LIMITS.previewRows ? ` (first ${SQL_LIMITS.previewRows} shown above)` : "";
  if (!r.truncated) return `${r.rowCount} row${r.rowCount === 1 ? "" : "s"}${shown}.`;
  const why = r.rowCount < maxRows ? "the reply size cap was reached" : `maxRows is ${maxRows}`;
  return `${r.rowCount} rows returned${shown}; the result has more (${why}). Aggregate, filter or add LIMIT, or COPY the full result TO 'generated_assets/<name>.csv'.`;
}

function cell(v: Json | string): string {
  if (v === null) return "";
  let s = typeof v === "string" ? v : JSON.stringify(v);
  if (s.length > SQL_LIMITS.previewCellChars) s = `${s.slice(0, SQL_LIMITS.previewCellChars - 1)}…`;
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}
