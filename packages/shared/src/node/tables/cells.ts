/*
 * The cell model every table reader in textide shares: exec_run_js's `readTable` and the IDE's table
 * viewer (`GET /api/table`) see the same cells because both read through this folder.
 */

/** One cell: text, a finite number, a boolean, or null for an empty (or unreadable) cell. */
export type Cell = string | number | boolean | null;

/** Names that are special on plain objects; a column so named gets a trailing underscore. */
const RESERVED_NAMES = new Set(["__proto__", "constructor"]);

/**
 * Makes header cells into unique, safe column names: trimmed (unless `trim` is false), empty → column_N
 * (1-based position), `__proto__`/`constructor` → `__proto___`/`constructor_`, duplicates → Name_2, Name_3.
 */
export function columnNames(header: readonly unknown[], trim = true): string[] {
  const seen = new Set<string>();
  return header.map((cell, i) => {
    let name = headerText(cell);
    if (trim) name = name.trim();
    if (name === "") name = `column_${i + 1}`;
    if (RESERVED_NAMES.has(name)) name = `${name}_`;
    let unique = name;
    for (let k = 2; seen.has(unique); k++) unique = `${name}_${k}`;
    seen.add(unique);
    return unique;
  });
}

function headerText(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (cell instanceof Date) return dateText(cell);
  if (typeof cell === "string") return cell;
  if (typeof cell === "number" || typeof cell === "boolean") return String(cell);
  return JSON.stringify(cell) ?? "";
}

/** A date as YYYY-MM-DD when it is a whole day, else a full ISO timestamp (UTC, as Excel stores it). */
export function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return "";
  const iso = d.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
}

/** A cell as display text (the table viewer's wire format): empty for null, `String()` otherwise. */
export function cellText(cell: Cell): string {
  return cell === null ? "" : String(cell);
}

/** Whether a row holds nothing: every cell null, undefined or "". Such rows are skipped by every reader. */
export function isEmptyRow(row: readonly unknown[]): boolean {
  return row.every((v) => v === null || v === undefined || v === "");
}

/** Spreadsheet column letters for a 0-based index: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

export type TableErrorCode = "unreadable" | "sheet_not_found" | "no_sheets";

/**
 * Why a table could not be read. Each surface words its own message from `code` and the fields (a model
 * is told which readTable call to make, a person which file to re-save); `message` is a plain default.
 */
export class TableError extends Error {
  override readonly name = "TableError";
  constructor(
    readonly code: TableErrorCode,
    message: string,
    readonly details: { sheets?: string[]; sheet?: string | number; reason?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isTableError(err: unknown): err is TableError {
  return err instanceof TableError;
}
