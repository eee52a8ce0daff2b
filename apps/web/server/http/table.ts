import { closeSync, readFile } from "node:fs";
import type { ServerResponse } from "node:http";
import { promisify } from "node:util";
import { tableQuery, type TableQuery, type TableResponse } from "@textide/shared";
import {
  DelimitedFile,
  type OpenedPath,
  type PathPolicy,
  cellText,
  isTableError,
  problemText,
  readDelimited,
  readXlsx,
  sortedOrder,
} from "@textide/shared/node";
import { AppError } from "../errors.js";
import { readQuery, sendJson } from "./respond.js";

/** Rows one request returns at most; the viewer asks for pages as the user scrolls. */
/** Workbooks (and UTF-16 text, which must be decoded first) are read into memory: refuse beyond this. */
const MAX_IN_MEMORY_BYTES = 32 * 1024 * 1024;
/** Sorting holds one column's cells and keys in memory (a CSV/TSV file itself has no size limit). */
const MAX_SORT_ROWS = 2_000_000;
/** Tables kept open (row offsets, parsed workbooks, sort orders) between requests. */
const OPEN_TABLES = 4;

const readFd = promisify(readFile) as (fd: number) => Promise<Buffer>;

/**
 * A table read once and then served a page at a time. Reads take the descriptor each request opened and
 * checked (`PathPolicy.openExisting`), of the file version the table was read from.
 */
interface OpenTable {
  sheets: string[];
  sheet: string;
  columns: string[];
  rowCount: number;
  warnings: string[];
  rows(fd: number, start: number, count: number): Promise<string[][]>;
  rowsAt(fd: number, indexes: readonly number[]): Promise<string[][]>;
  column(fd: number, col: number): Promise<string[]>;
  /** The sort order last asked for, by `${col}:${dir}`, and the cells of its column (for the other direction). */
  orders: Map<string, Promise<Uint32Array>>;
  cells?: { col: number; cells: Promise<string[]> };
}

function inMemory(rows: string[][], rest: Pick<OpenTable, "sheets" | "sheet" | "columns" | "warnings">): OpenTable {
  return {
    ...rest,
    rowCount: rows.length,
    rows: (_fd, start, count) => Promise.resolve(rows.slice(start, start + count)),
    rowsAt: (_fd, indexes) => Promise.resolve(indexes.map((i) => rows[i]!)),
    column: (_fd, col) => Promise.resolve(rows.map((r) => r[col] ?? "")),
    orders: new Map(),
  };
}

/** Open tables by file, keyed also by what identifies the version read (size, mtime, sheet). */
type TableCache = Map<string, { version: string; table: Promise<OpenTable> }>;

/*
 * One cache per path policy, i.e. per running server (tests start several in one process); a WeakMap so
 * the route keeps its simple `(deps, url, res)` shape.
 */
const caches = new WeakMap<PathPolicy, TableCache>();

function tooLarge(display: string, size: number, what: string): AppError {
  return new AppError(
    413,
    "too_large",
    `${display} is ${size} bytes; the table viewer reads ${what} up to ${MAX_IN_MEMORY_BYTES} bytes.`,
  );
}

async function openDelimited(fd: number, display: string, size: number): Promise<OpenTable> {
  const plain = { sheets: [], sheet: "" };
  try {
    const file = await DelimitedFile.open(fd, display);
    return {
      ...plain,
      columns: file.columns,
      rowCount: file.rowCount,
      warnings: file.problems.slice(0, 3).map(problemText),
      rows: (f, start, count) => file.rows(f, start, count),
      rowsAt: (f, indexes) => file.rowsAt(f, indexes),
      column: (f, col) => file.column(f, col),
      orders: new Map(),
    };
  } catch (err) {
    if (!isTableError(err) || err.details.reason !== "utf-16") throw err;
  }
  if (size > MAX_IN_MEMORY_BYTES) throw tooLarge(display, size, "UTF-16 text files");
  const read = readDelimited(await readFd(fd), display);
  return inMemory(read.rows, { ...plain, columns: read.columns, warnings: read.problems.slice(0, 3).map(problemText) });
}

async function openWorkbook(fd: number, display: string, size: number, sheet: string | undefined): Promise<OpenTable> {
  if (size > MAX_IN_MEMORY_BYTES) throw tooLarge(display, size, "workbooks");
  // The reader exec_run_js's readTable uses (@textide/shared/node): the same header row, empty-row rule,
  // sheet lookup and cell values, so the viewer shows what the agent reads.
  try {
    const read = await readXlsx(await readFd(fd), { sheet });
    return inMemory(
      read.rows.map((r) => r.map(cellText)),
      { sheets: read.sheets, sheet: read.sheet, columns: read.columns, warnings: read.warnings },
    );
  } catch (err) {
    if (!isTableError(err)) throw err;
    if (err.code === "sheet_not_found") {
      const sheets = err.details.sheets ?? [];
      throw new AppError(
        404,
        "not_found",
        `Sheet ${JSON.stringify(err.details.sheet)} not found in ${display}; sheets are: ${sheets.map((n) => JSON.stringify(n)).join(", ")}.`,
        { details: { sheets } },
      );
    }
    throw new AppError(
      415,
      "unsupported_media_type",
      err.code === "no_sheets"
        ? `${display} has no sheets.`
        : `${display} could not be read as an .xlsx workbook (${err.details.reason ?? err.message}). Check that the file is complete.`,
      { cause: err },
    );
  }
}

/**
 * `GET /api/table?path=&sheet=&offset=&limit=&sort=&dir=`: one page of a table — a sheet of an .xlsx
 * workbook, or a .csv/.tsv file of any size — as text cells with the header row apart, optionally sorted
 * by one column. The editor reads text files up to 5 MiB; every table view reads through here.
 */
export async function getTable(deps: { policy: PathPolicy }, url: URL, res: ServerResponse): Promise<void> {
  const { path: input, sheet, offset, limit, sort: sortCol, dir } = readQuery(url, tableQuery);

  // The policy opens the file and checks that descriptor; every byte of this answer is read through it.
  const target = await deps.policy.openExisting(input);
  try {
    sendJson(res, 200, await tablePage(deps.policy, target, { sheet, offset, limit, sortCol, dir }));
  } finally {
    closeSync(target.fd);
  }
}

async function tablePage(
  policy: PathPolicy,
  target: OpenedPath,
  { sheet, offset, limit, sortCol, dir }: Pick<TableQuery, "sheet" | "offset" | "limit" | "dir"> & { sortCol?: number },
): Promise<TableResponse> {
  if (!target.stats.isFile()) throw new AppError(400, "not_a_file", `${target.display} is a directory.`);
  const lower = target.display.toLowerCase();
  const delimited = lower.endsWith(".csv") || lower.endsWith(".tsv");
  if (lower.endsWith(".xls")) {
    throw new AppError(
      415,
      "unsupported_media_type",
      `${target.display} is an Excel 97-2003 (.xls) workbook, which textide cannot read. Re-save it as .xlsx.`,
    );
  }
  if (!delimited && !lower.endsWith(".xlsx")) {
    throw new AppError(415, "unsupported_media_type", `${target.display} is not an .xlsx, .csv or .tsv table.`);
  }

  let cache = caches.get(policy);
  if (!cache) {
    cache = new Map();
    caches.set(policy, cache);
  }
  const { dev, ino, size: bytes, mtimeNs } = target.stats;
  const version = `${dev}:${ino}:${bytes}:${mtimeNs}:${delimited ? "" : (sheet ?? "")}`;
  let entry = cache.get(target.abs);
  if (entry?.version !== version) {
    const { abs, display, fd } = target;
    const size = Number(bytes);
    const opened = {
      version,
      table: delimited ? openDelimited(fd, display, size) : openWorkbook(fd, display, size, sheet),
    };
    // A failed read is not kept: the next request tries again (the file may be fixed meanwhile).
    opened.table.catch(() => cache.get(abs) === opened && cache.delete(abs));
    entry = opened;
  }
  // Most recently used last; the oldest open table is dropped.
  cache.delete(target.abs);
  cache.set(target.abs, entry);
  if (cache.size > OPEN_TABLES) cache.delete(cache.keys().next().value!);
  const table = await entry.table;

  if (sortCol !== undefined && sortCol >= table.columns.length) {
    throw new AppError(400, "bad_request", `\`sort\` is a column number from 0 to ${table.columns.length - 1}.`);
  }
  if (sortCol !== undefined && table.rowCount > MAX_SORT_ROWS) {
    throw new AppError(
      400,
      "bad_request",
      `${target.display} has ${table.rowCount.toLocaleString("en")} rows; sorting works on tables of up to ${MAX_SORT_ROWS.toLocaleString("en")} rows.`,
    );
  }

  const end = Math.min(table.rowCount, offset + limit);
  let rowNumbers: number[] = [];
  for (let i = offset; i < end; i++) rowNumbers.push(i);
  let rows: string[][];
  if (sortCol === undefined) rows = await table.rows(target.fd, offset, end - offset);
  else {
    const key = `${sortCol}:${dir}`;
    let order = table.orders.get(key);
    if (!order) {
      // Clicking a header twice asks for both directions of one column: its cells are read once.
      if (table.cells?.col !== sortCol) table.cells = { col: sortCol, cells: table.column(target.fd, sortCol) };
      order = table.cells.cells.then((cells) => sortedOrder(cells, dir));
      table.orders.clear(); // one order per table at a time: each holds 4 bytes per row
      table.orders.set(key, order);
    }
    rowNumbers = Array.from((await order).subarray(offset, end));
    rows = await table.rowsAt(target.fd, rowNumbers);
  }
  return {
    path: target.display,
    sheets: table.sheets,
    sheet: table.sheet,
    columns: table.columns,
    rows,
    rowNumbers,
    offset,
    totalRows: table.rowCount,
    maxSortRows: MAX_SORT_ROWS,
    ...(table.warnings.length > 0 ? { warnings: table.warnings } : {}),
  };
}
