import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import type { TableResponse } from "@textide/shared";
import { type PathPolicy, cellText, isTableError, readXlsx } from "@textide/shared/node";
import { AppError } from "../errors.js";
import { sendJson } from "./respond.js";

/** Data rows `GET /api/table` returns; the UI says "first N rows" when a sheet has more. */
const MAX_TABLE_ROWS = 100_000;
/** Workbooks are unzipped in memory: refuse files far beyond what a viewer needs. */
const MAX_WORKBOOK_BYTES = 32 * 1024 * 1024;

/** CSV/TSV files are streamed, not held in memory, but a read still takes time: refuse beyond this. */
const MAX_DELIMITED_BYTES = 512 * 1024 * 1024;

/**
 * An RFC 4180 parser fed chunk by chunk (quoted fields, doubled quotes, CRLF), the same rules as the
 * browser's `lib/csv.ts`: keeps the first `keep` rows and only counts the rest.
 */
class DelimitedRows {
  readonly rows: string[][] = [];
  count = 0;
  private row: string[] = [];
  private field = "";
  private quoted = false;
  /** A quote inside a quoted field: a doubled quote or the field's end, decided by the next character. */
  private quote = false;
  /** The last character was a CR (a following LF belongs to the same line end). */
  private cr = false;

  constructor(
    private readonly delimiter: string,
    private readonly keep: number,
  ) {}

  push(chunk: string): void {
    for (let i = 0; i < chunk.length; i++) {
      let c = chunk[i]!;
      if (this.count === 0 && this.row.length === 0 && this.field === "" && c === "\uFEFF") continue;
      if (this.cr) {
        this.cr = false;
        if (c === "\n") continue;
      }
      if (this.quote) {
        this.quote = false;
        if (c === '"') {
          this.field += '"';
          continue;
        }
        this.quoted = false;
      }
      if (this.quoted) {
        if (c === '"') this.quote = true;
        else this.field += c;
        continue;
      }
      if (c === '"' && this.field === "") this.quoted = true;
      else if (c === this.delimiter) {
        this.row.push(this.field);
        this.field = "";
      } else if (c === "\n" || c === "\r") {
        this.cr = c === "\r";
        this.endRow();
      } else {
        // Plain text up to the next special character in one slice.
        let j = i + 1;
        while (j < chunk.length) {
          c = chunk[j]!;
          if (c === this.delimiter || c === "\n" || c === "\r" || c === '"') break;
          j++;
        }
        this.field += chunk.slice(i, j);
        i = j - 1;
      }
    }
  }

  end(): void {
    if (this.field !== "" || this.row.length > 0) this.endRow();
  }

  private endRow(): void {
    this.row.push(this.field);
    if (this.count < this.keep) this.rows.push(this.row);
    this.count++;
    this.row = [];
    this.field = "";
  }
}

/** A CSV (or TSV) file as a table: the header row, the first rows, and how many there are in all. */
async function delimitedTable(abs: string, display: string, delimiter: string): Promise<TableResponse> {
  const parser = new DelimitedRows(delimiter, MAX_TABLE_ROWS + 1);
  const stream = createReadStream(abs, { encoding: "utf8", highWaterMark: 1024 * 1024 });
  for await (const chunk of stream as AsyncIterable<string>) parser.push(chunk);
  parser.end();
  const [head = [], ...body] = parser.rows;
  const width = body.reduce((w, r) => Math.max(w, r.length), head.length);
  const columns = Array.from({ length: width }, (_, i) => head[i] || `column ${i + 1}`);
  const totalRows = Math.max(0, parser.count - 1);
  return {
    path: display,
    sheets: [],
    sheet: "",
    columns,
    rows: body,
    totalRows,
    truncated: totalRows > body.length,
    maxRows: MAX_TABLE_ROWS,
  };
}

/**
 * `GET /api/table?path=&sheet=`: one sheet of an .xlsx workbook, or a .csv/.tsv file (no sheets), as text
 * cells with the header row apart. The editor reads text files up to 5 MiB; larger tables open here.
 */
export async function getTable(deps: { policy: PathPolicy }, url: URL, res: ServerResponse): Promise<void> {
  const input = url.searchParams.get("path");
  if (!input) throw new AppError(400, "bad_request", "Missing `path` query parameter.");
  const target = await deps.policy.resolveExisting(input);
  if (!target.stats.isFile()) throw new AppError(400, "not_a_file", `${target.display} is a directory.`);
  const lower = target.display.toLowerCase();
  if (lower.endsWith(".csv") || lower.endsWith(".tsv")) {
    if (target.stats.size > MAX_DELIMITED_BYTES) {
      throw new AppError(
        413,
        "too_large",
        `${target.display} is ${target.stats.size} bytes; the table viewer opens CSV/TSV files up to ${MAX_DELIMITED_BYTES} bytes.`,
      );
    }
    sendJson(res, 200, await delimitedTable(target.abs, target.display, lower.endsWith(".tsv") ? "\t" : ","));
    return;
  }
  if (lower.endsWith(".xls")) {
    throw new AppError(
      415,
      "unsupported_media_type",
      `${target.display} is an Excel 97-2003 (.xls) workbook, which textide cannot read. Re-save it as .xlsx.`,
    );
  }
  if (!lower.endsWith(".xlsx")) {
    throw new AppError(415, "unsupported_media_type", `${target.display} is not an .xlsx, .csv or .tsv table.`);
  }
  if (target.stats.size > MAX_WORKBOOK_BYTES) {
    throw new AppError(
      413,
      "too_large",
      `${target.display} is ${target.stats.size} bytes; the table viewer opens workbooks up to ${MAX_WORKBOOK_BYTES} bytes.`,
    );
  }
  // The reader exec_run_js's readTable uses (@textide/shared/node): the same header row, empty-row rule,
  // sheet lookup and cell values, so the viewer shows what the agent reads.
  let read;
  try {
    read = await readXlsx(await readFile(target.abs), { sheet: url.searchParams.get("sheet") || undefined });
  } catch (err) {
    if (!isTableError(err)) throw err;
    if (err.code === "sheet_not_found") {
      const sheets = err.details.sheets ?? [];
      throw new AppError(
        404,
        "not_found",
        `Sheet ${JSON.stringify(err.details.sheet)} not found in ${target.display}; sheets are: ${sheets.map((n) => JSON.stringify(n)).join(", ")}.`,
        { details: { sheets } },
      );
    }
    throw new AppError(
      415,
      "unsupported_media_type",
      err.code === "no_sheets"
        ? `${target.display} has no sheets.`
        : `${target.display} could not be read as an .xlsx workbook (${err.details.reason ?? err.message}). Check that the file is complete.`,
      { cause: err },
    );
  }
  const answer: TableResponse = {
    path: target.display,
    sheets: read.sheets,
    sheet: read.sheet,
    columns: read.columns,
    rows: read.rows.slice(0, MAX_TABLE_ROWS).map((r) => r.map(cellText)),
    totalRows: read.rows.length,
    truncated: read.rows.length > MAX_TABLE_ROWS,
    maxRows: MAX_TABLE_ROWS,
    ...(read.warnings.length > 0 ? { warnings: read.warnings } : {}),
  };
  sendJson(res, 200, answer);
}
