import { type Cell, TableError, columnLetters, columnNames, dateText, isEmptyRow } from "./cells.js";

/*
 * The one .xlsx reader (read-excel-file, OOXML only). Rules, the same for the table viewer and for
 * exec_run_js's readTable:
 * - sheets are named as the workbook names them; a sheet is chosen by exact name, else by name ignoring
 *   case and surrounding spaces, or by 1-based number; the first sheet by default;
 * - rows with no cells (all empty) are skipped wherever they are; the first remaining row is the header;
 * - header names go through `columnNames` (trimmed, unique, empty → column_N);
 * - cells: strings, finite numbers, booleans, dates as ISO text (YYYY-MM-DD for whole days), empty → null;
 * - a numeric cell whose value is not a number (`<v>NaN</v>`, `INF`, as some exporters write) is read as
 *   empty and named in a warning instead of failing the whole workbook.
 */

export interface XlsxTable {
  /** The sheet that was read. */
  sheet: string;
  /** All sheet names, in workbook order. */
  sheets: string[];
  columns: string[];
  /** Data rows (the header row excluded), each as long as `columns`. */
  rows: Cell[][];
  /** Notes about cells that could not be read as they are (e.g. `Sheet "Data": cell B7 holds "NaN" …`). */
  warnings: string[];
}

export interface ReadXlsxOptions {
  /** A sheet name, or a 1-based sheet number; the first sheet by default. */
  sheet?: string | number;
}

/** What `parseNumber` returns for a numeric cell whose text is not a finite number. */
class BadNumber {
  constructor(readonly text: string) {}
}

function parseNumber(text: string): number | BadNumber {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(n) ? n : new BadNumber(text);
}

function xlsxCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return dateText(value) || null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (value instanceof BadNumber) return null;
  return JSON.stringify(value) ?? null;
}

/** Cells listed by name in a warning; the rest are counted. */
const MAX_LISTED_CELLS = 20;

function badCellWarning(sheet: string, bad: readonly { ref: string; text: string }[]): string {
  const listed = bad.slice(0, MAX_LISTED_CELLS).map((b) => `${b.ref} (${JSON.stringify(b.text)})`);
  const more = bad.length > MAX_LISTED_CELLS ? ` and ${bad.length - MAX_LISTED_CELLS} more` : "";
  return bad.length === 1
    ? `Sheet ${JSON.stringify(sheet)}: cell ${listed[0]} is a numeric cell whose value is not a number; it was read as empty.`
    : `Sheet ${JSON.stringify(sheet)}: ${bad.length} numeric cells hold values that are not numbers and were read as empty: ${listed.join(", ")}${more}.`;
}

/** Index of the wanted sheet, or -1. */
export function findSheet(names: readonly string[], wanted: string | number | undefined): number {
  if (wanted === undefined) return names.length > 0 ? 0 : -1;
  if (typeof wanted === "number")
    return Number.isInteger(wanted) && wanted >= 1 && wanted <= names.length ? wanted - 1 : -1;
  const exact = names.indexOf(wanted);
  if (exact >= 0) return exact;
  const folded = wanted.trim().toLowerCase();
  return names.findIndex((n) => n.trim().toLowerCase() === folded);
}

/**
 * Reads one sheet of an .xlsx workbook. Throws TableError `unreadable` (not a readable workbook),
 * `no_sheets`, or `sheet_not_found` (with `details.sheets`).
 */
export async function readXlsx(bytes: Uint8Array, opts: ReadXlsxOptions = {}): Promise<XlsxTable> {
  // Loaded at the first workbook, not with the package: the MCP server imports these modules for
  // its file tools, and read-excel-file and its unzip stack were a quarter of its start-up.
  const { default: readXlsxFile } = await import("read-excel-file/node");
  let workbook;
  try {
    // A Buffer: read-excel-file's Node entry would treat a string as a file path.
    workbook = await readXlsxFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { parseNumber });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new TableError("unreadable", `Not a readable .xlsx workbook (${reason}).`, { reason }, { cause: err });
  }
  const sheets = workbook.map((s) => s.sheet);
  if (sheets.length === 0) throw new TableError("no_sheets", "The workbook has no sheets.", { sheets });
  const index = findSheet(sheets, opts.sheet);
  const chosen = index < 0 ? undefined : workbook[index];
  if (!chosen) {
    throw new TableError(
      "sheet_not_found",
      `Sheet ${JSON.stringify(opts.sheet)} not found; sheets are: ${sheets.map((n) => JSON.stringify(n)).join(", ")}.`,
      { sheets, ...(opts.sheet === undefined ? {} : { sheet: opts.sheet }) },
    );
  }

  // read-excel-file places each cell at its position: data[r][c] is the cell at row r+1, column c+1.
  const bad: { ref: string; text: string }[] = [];
  chosen.data.forEach((row, r) =>
    row.forEach((v, c) => {
      if (v instanceof BadNumber) bad.push({ ref: `${columnLetters(c)}${r + 1}`, text: v.text });
    }),
  );
  const nonEmpty = chosen.data
    .map((row) => (row as readonly unknown[]).map(xlsxCell))
    .filter((row) => !isEmptyRow(row));
  const [header = [], ...body] = nonEmpty;
  let width = header.length;
  for (const r of body) if (r.length > width) width = r.length;
  const columns = columnNames(Array.from({ length: width }, (_, i) => header[i] ?? ""));
  const rows = body.map((cells) => Array.from({ length: width }, (_, i) => cells[i] ?? null));
  return {
    sheet: chosen.sheet,
    sheets,
    columns,
    rows,
    warnings: bad.length > 0 ? [badCellWarning(chosen.sheet, bad)] : [],
  };
}
