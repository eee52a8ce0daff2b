import Papa from "papaparse";
import { TableError, columnNames } from "./cells.js";

/*
 * The one CSV/TSV reader (papaparse), for exec_run_js's readTable and the IDE's table viewer. Rules:
 * - .tsv/.tab files are tab-separated; a .csv file's delimiter is guessed from its first rows among
 *   `,` `;` tab `|` (a semicolon CSV from a European Excel reads as such), `,` when nothing fits;
 * - the line break is the file's first one (`\n`, `\r\n` or `\r`); a stray CR before an LF in a file
 *   that otherwise ends lines with LF is dropped;
 * - RFC 4180 quoting: a field that starts with `"` runs to the matching quote, `""` is a quote; a quote
 *   inside an unquoted field is text; an unclosed quote is reported in `problems`;
 * - rows with nothing but empty or blank cells are skipped wherever they are (like the xlsx reader's
 *   empty rows); the first remaining row is the header, named by `columnNames`;
 * - ragged rows: the table is as wide as its widest row; short rows are padded with "";
 * - text: UTF-16 with a BOM; otherwise UTF-8 (a BOM dropped), or Windows-1252 when the file is not valid
 *   UTF-8 (old Excel exports).
 * The parser runs over the bytes read as latin1 (one char per byte: delimiters, quotes and line breaks
 * are ASCII and never part of a multi-byte UTF-8 sequence), so positions are byte offsets and a large
 * file can be read from any row boundary (`delimited-file.ts`); cells are decoded afterwards.
 */

export interface DelimitedFormat {
  delimiter: string;
  newline: "\n" | "\r\n" | "\r";
}

export interface DelimitedProblem {
  /** 0-based data row (the header is row -1). */
  row: number;
  message: string;
}

export interface DelimitedTable {
  columns: string[];
  /** Data rows (the header row excluded), each as long as `columns`. */
  rows: string[][];
  format: DelimitedFormat;
  /** Quoting the parser had to guess around (an unclosed quote swallows the rest of the file). */
  problems: DelimitedProblem[];
}

const GUESSED = [",", ";", "\t", "|"];
/** Bytes looked at to guess the delimiter and the line break. */
export const SAMPLE_BYTES = 64 * 1024;

/** Whether a file name is read as tab-separated. */
export function isTabSeparated(fileName: string): boolean {
  const lower = fileName.toLowerCase();
  return lower.endsWith(".tsv") || lower.endsWith(".tab");
}

/** The delimiter and line break of a file, from the start of its text (latin1, BOM removed). */
export function delimitedFormat(sample: string, fileName: string): DelimitedFormat {
  const guess = Papa.parse<string[]>(sample, {
    preview: 10,
    // Blank lines (a trailing one too) would count as rows of one field and spoil the guess.
    skipEmptyLines: "greedy",
    ...(isTabSeparated(fileName) ? { delimiter: "\t" } : { delimitersToGuess: GUESSED }),
  });
  const lb = guess.meta.linebreak;
  return {
    delimiter: isTabSeparated(fileName) ? "\t" : guess.meta.delimiter || ",",
    newline: lb === "\r\n" || lb === "\r" ? lb : "\n",
  };
}

/** papaparse's options for a format: every reader parses with exactly these. */
export function papaOptions(format: DelimitedFormat): Papa.ParseConfig<string[]> {
  return {
    delimiter: format.delimiter,
    newline: format.newline,
    quoteChar: '"',
    escapeChar: '"',
    // papaparse's "greedy" mode is several times slower than this plus `isBlankRow` on a busy machine.
    skipEmptyLines: true,
  };
}

/** A row of nothing but empty or blank cells (`,,` or ` ; `): skipped like an empty line. */
export function isBlankRow(row: readonly string[]): boolean {
  return row.every((c) => c.trim() === "");
}

/** A parsed row (latin1 cells): a CR left before an LF in a mostly-LF file is not part of the last cell. */
export function cleanRow(row: string[], format: DelimitedFormat): string[] {
  if (format.newline === "\n" && row.length > 0) {
    const last = row[row.length - 1]!;
    if (last.endsWith("\r")) row[row.length - 1] = last.slice(0, -1);
  }
  return row;
}

const HIGH = /[\x80-\xff]/;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const cp1252 = new TextDecoder("windows-1252");

/** Turns a cell read as latin1 into text in the file's encoding. */
export function cellDecoder(encoding: "utf-8" | "windows-1252"): (latin1: string) => string {
  return (s) => {
    if (!HIGH.test(s)) return s;
    const bytes = Buffer.from(s, "latin1");
    return encoding === "utf-8" ? utf8.decode(bytes) : cp1252.decode(bytes);
  };
}

/** Whether bytes are valid UTF-8. */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A quoting problem as people and models read it. */
export function problemText(p: DelimitedProblem): string {
  return p.row < 0 ? `header row: ${p.message}` : `row ${p.row + 1}: ${p.message}`;
}

/** A papaparse quoting error as a problem of data row `row` (-1: the header); other errors are none. */
export function quoteProblem(e: Papa.ParseError, format: DelimitedFormat, row: number): DelimitedProblem | undefined {
  if (e.type !== "Quotes") return undefined;
  const message =
    e.code === "MissingQuotes"
      ? "a quoted field is never closed, so the rest of the file was read into that one cell"
      : `a quoted field is followed by text before the next ${format.delimiter === "\t" ? "tab" : JSON.stringify(format.delimiter)}`;
  return { row, message };
}

/**
 * The bytes of a delimited file as latin1 text ready to parse (BOM removed; UTF-16 re-encoded as UTF-8),
 * and the encoding to decode its cells with.
 */
export function delimitedText(bytes: Uint8Array): { text: string; encoding: "utf-8" | "windows-1252" } {
  let body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (body[0] === 0xff && body[1] === 0xfe) body = Buffer.from(new TextDecoder("utf-16le").decode(body.subarray(2)));
  else if (body[0] === 0xfe && body[1] === 0xff)
    body = Buffer.from(new TextDecoder("utf-16be").decode(body.subarray(2)));
  else if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
  return { text: body.toString("latin1"), encoding: isUtf8(body) ? "utf-8" : "windows-1252" };
}

/** Header names and a width from the header and the widest row; rows padded to it. */
export function shapeTable(header: readonly string[], width: number): string[] {
  const full = [...header];
  while (full.length < width) full.push("");
  return columnNames(full);
}

/** Reads a whole CSV/TSV file held in memory. */
export function readDelimited(bytes: Uint8Array, fileName: string): DelimitedTable {
  if (bytes.byteLength > 0x1fff_ffe8) {
    throw new TableError("unreadable", "The file is too large to read into memory at once.", {
      reason: "too large",
    });
  }
  const { text, encoding } = delimitedText(bytes);
  const format = delimitedFormat(text.slice(0, SAMPLE_BYTES), fileName);
  const parsed = Papa.parse<string[]>(text, papaOptions(format));
  const decode = cellDecoder(encoding);
  const problems = parsed.errors.flatMap((e) => quoteProblem(e, format, (e.row ?? 0) - 1) ?? []);
  const [head = [], ...body] = parsed.data.filter((r) => !isBlankRow(r)).map((r) => cleanRow(r, format).map(decode));
  let width = head.length;
  for (const r of body) if (r.length > width) width = r.length;
  const columns = shapeTable(head, width);
  for (const r of body) while (r.length < width) r.push("");
  return { columns, rows: body, format, problems };
}
