import path from "node:path";
import { isRecord } from "@textide/shared";
import { type Cell, columnNames, isTableError, problemText, readDelimited, readXlsx } from "@textide/shared/node";
import { ExecError } from "./errors.js";

/*
 * Host side of the sandbox's `readTable(path, {sheet})`: file bytes in, rows out. Pure (the
 * caller reads the file). Rows are plain objects of strings, numbers, booleans and nulls, so
 * they copy into the isolate as they are; header names that would be special on a plain
 * object (`__proto__`, `constructor`) are renamed. Workbooks and CSV/TSV files are read by
 * `@textide/shared/node`'s `readXlsx` and `readDelimited`, the readers the IDE's table viewer uses, so the
 * agent and the viewer see the same cells; here CSV text cells are then typed (numbers, booleans, null).
 */

export type { Cell };
export { columnNames };
export type Row = Record<string, Cell>;

export interface Table {
  columns: string[];
  rows: Row[];
  /** The sheet that was read (.xlsx only). */
  sheet?: string;
  /** All sheet names, in workbook order (.xlsx only). */
  sheets?: string[];
  /** Cells that could not be read as they are (e.g. a numeric cell holding "NaN", read as null). */
  warnings?: string[];
}

export interface ParseTableOptions {
  /** .xlsx only: a sheet name, or a 1-based sheet number; the first sheet by default. */
  sheet?: string | number;
}

const SUPPORTED = "readTable reads .csv, .tsv, .xlsx, .json and .jsonl/.ndjson files";

/** Parses a table file by its extension. Throws ExecError("runtime") with a fix-it message on bad input. */
export async function parseTable(bytes: Uint8Array, fileName: string, opts: ParseTableOptions = {}): Promise<Table> {
  const base = path.basename(fileName);
  const ext = path.extname(fileName).toLowerCase();
  if (opts.sheet !== undefined && ext !== ".xlsx") {
    throw new ExecError(
      "runtime",
      `${base} is not a workbook: the sheet option only applies to .xlsx files. Call readTable("${base}") without it.`,
    );
  }
  switch (ext) {
    case ".csv":
    case ".tsv":
    case ".tab":
      return parseDelimited(bytes, base);
    case ".xlsx":
      return parseXlsx(bytes, base, opts.sheet);
    case ".json":
      return parseJson(decodeText(bytes), base);
    case ".jsonl":
    case ".ndjson":
      return parseJsonLines(decodeText(bytes), base);
    case ".xls":
    case ".xlsm":
    case ".xlsb":
    case ".ods":
    case ".numbers":
      throw new ExecError(
        "runtime",
        `${SUPPORTED}; ${base} is a ${ext} spreadsheet, which it cannot read. ` +
          `Ask the user to save it as .xlsx or .csv.`,
      );
    default:
      throw new ExecError(
        "runtime",
        `${SUPPORTED}; use readText for other text files (${base} has ` +
          `${ext ? `the extension ${ext}` : "no extension"}) and parse the text yourself.`,
      );
  }
}

// --- text ------------------------------------------------------------------------------------

/** UTF-8 (BOM stripped), UTF-16 with a BOM, or — when the bytes are not valid UTF-8 — Windows-1252. */
function decodeText(bytes: Uint8Array): string {
  const b0 = bytes[0];
  const b1 = bytes[1];
  if (b0 === 0xff && b1 === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (b0 === 0xfe && b1 === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  // TextDecoder drops a UTF-8 BOM by default.
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

// --- CSV / TSV -------------------------------------------------------------------------------

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** CSV cell text → number, boolean, null (empty) or the string itself. IDs like 007 stay strings. */
function typedCell(text: string): Cell {
  const t = text.trim();
  if (t === "") return null;
  if (NUMBER.test(t)) {
    const digits = t.replace(/^[-+]/, "");
    const leadingZero = /^0\d/.test(digits);
    const n = Number(t);
    const integral = /^\d+$/.test(digits);
    if (!leadingZero && Number.isFinite(n) && (!integral || Number.isSafeInteger(n))) return n;
    return text;
  }
  const lower = t.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  return text;
}

function parseDelimited(bytes: Uint8Array, base: string): Table {
  const read = readDelimited(bytes, base);
  const problem = read.problems[0];
  if (problem) {
    throw new ExecError(
      "runtime",
      `${base} is not valid ${read.format.delimiter === "\t" ? "TSV" : "CSV"}: ${problemText(problem)}. ` +
        `Read it with readText and split the lines yourself, or fix the quoting in the file.`,
    );
  }
  const { columns } = read;
  const rows = read.rows.map((cells) => {
    const row: Row = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = typedCell(cells[i] ?? "");
    return row;
  });
  return { columns, rows };
}

// --- XLSX ------------------------------------------------------------------------------------

function sheetList(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(", ");
}

async function parseXlsx(bytes: Uint8Array, base: string, sheet: string | number | undefined): Promise<Table> {
  let read;
  try {
    read = await readXlsx(bytes, sheet === undefined ? {} : { sheet });
  } catch (err) {
    if (!isTableError(err)) throw err;
    const names = err.details.sheets ?? [];
    if (err.code === "unreadable") {
      throw new ExecError(
        "runtime",
        `${base} could not be read as an .xlsx workbook (${err.details.reason ?? err.message}). If it is really a CSV ` +
          `or an old .xls file, rename or re-save it; otherwise check that the file is complete.`,
        { cause: err },
      );
    }
    if (err.code === "no_sheets") throw new ExecError("runtime", `${base} has no sheets.`, { cause: err });
    if (typeof sheet === "number") {
      throw new ExecError(
        "runtime",
        `Sheet ${sheet} not found: ${base} has ${names.length} sheet${names.length === 1 ? "" : "s"} ` +
          `(numbered from 1): ${sheetList(names)}. Pass a number from 1 to ${names.length} or a sheet name.`,
        { cause: err },
      );
    }
    throw new ExecError(
      "runtime",
      `Sheet ${JSON.stringify(sheet)} not found; sheets are: ${sheetList(names)}. ` +
        `Pass one of these names exactly, e.g. readTable("${base}", { sheet: ${JSON.stringify(names[0] ?? "Sheet1")} }).`,
      { cause: err },
    );
  }
  const { columns } = read;
  const rows = read.rows.map((cells) => {
    const row: Row = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = cells[i] ?? null;
    return row;
  });
  return {
    columns,
    rows,
    sheet: read.sheet,
    sheets: read.sheets,
    ...(read.warnings.length > 0 ? { warnings: read.warnings } : {}),
  };
}

// --- JSON ------------------------------------------------------------------------------------

const JSON_SHAPE =
  'readTable expects JSON that is an array of row objects, like [{"name": "Io", "diameter": 3643}, ...], ' +
  'or an object with exactly one such array, like {"moons": [...]}';

/** An own property's value; `o[key]` would read the prototype for a parsed "__proto__" key. */
function own(o: Record<string, unknown>, key: string): unknown {
  return Object.getOwnPropertyDescriptor(o, key)?.value;
}

function isRowArray(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.every(isRecord);
}

function jsonCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  // Nested objects and arrays become JSON text; the table stays flat.
  return JSON.stringify(value) ?? null;
}

/** Rows from parsed JSON objects: columns in order of first appearance, missing fields null. */
function tableFromObjects(objects: readonly Record<string, unknown>[]): Table {
  const keys: string[] = [];
  const known = new Set<string>();
  for (const o of objects) {
    for (const k of Object.keys(o)) {
      if (!known.has(k)) {
        known.add(k);
        keys.push(k);
      }
    }
  }
  // JSON keys are kept verbatim (no trimming); only empty, duplicate-after-rename and reserved ones change.
  const columns = columnNames(keys, false);
  const rows = objects.map((o) => {
    const row: Row = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      row[columns[i]!] = jsonCell(own(o, key));
    }
    return row;
  });
  return { columns, rows };
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) {
    const bad: unknown = v.find((x) => !isRecord(x));
    return `an array whose items are not all objects (found ${bad === null ? "null" : Array.isArray(bad) ? "an array" : typeof bad})`;
  }
  if (isRecord(v)) {
    const arrays = Object.keys(v).filter((k) => isRowArray(own(v, k)));
    return arrays.length === 0
      ? `an object with no array-of-objects property (keys: ${Object.keys(v).slice(0, 10).join(", ") || "none"})`
      : `an object with ${arrays.length} arrays of objects (${arrays.join(", ")}), so it is unclear which is the table`;
  }
  return `a ${typeof v}`;
}

function parseJson(text: string, base: string): Table {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ExecError("runtime", `${base} is not valid JSON: ${why}.`, { cause: err });
  }
  if (isRowArray(value)) return tableFromObjects(value);
  if (isRecord(value)) {
    const arrays = Object.keys(value).filter((k) => isRowArray(own(value, k)));
    const only = arrays.length === 1 ? own(value, arrays[0]!) : undefined;
    if (isRowArray(only)) return tableFromObjects(only);
  }
  throw new ExecError(
    "runtime",
    `${JSON_SHAPE}; ${base} is ${describe(value)}. ` +
      `For other shapes use readText("${base}") and JSON.parse it yourself.`,
  );
}

function parseJsonLines(text: string, base: string): Table {
  const objects: Record<string, unknown>[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new ExecError(
        "runtime",
        `${base} line ${i + 1} is not valid JSON (${err instanceof Error ? err.message : String(err)}); ` +
          `each line of a .jsonl/.ndjson file must be one JSON object.`,
        { cause: err },
      );
    }
    if (!isRecord(value)) {
      throw new ExecError(
        "runtime",
        `${base} line ${i + 1} is ${describe(value)}; each line of a .jsonl/.ndjson file must be one JSON object.`,
      );
    }
    objects.push(value);
  }
  return tableFromObjects(objects);
}
