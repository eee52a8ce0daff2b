import { z } from "zod";
import { intParam, pathParam, textParam } from "./query.js";

/**
 * `GET /api/table?path=&sheet=&offset=&limit=&sort=&dir=`: one page of a table (a workbook's sheet or a
 * CSV/TSV file of any size), cells as text, the header row apart.
 */
export interface TableResponse {
  path: string;
  sheets: string[];
  sheet: string;
  columns: string[];
  /** The page: rows `offset` … `offset + rows.length - 1` of the table in the order asked for. */
  rows: string[][];
  /** Each page row's 0-based position among the file's data rows (sorting moves rows). */
  rowNumbers: number[];
  offset: number;
  /** Data rows in the table (the header row excluded), every row counted. */
  totalRows: number;
  /** Sorting is offered for tables up to this many rows; larger ones are shown in file order. */
  maxSortRows: number;
  /** Cells that could not be read as they are (e.g. a numeric cell holding "NaN", shown empty). */
  warnings?: string[];
}

/** Rows one page may hold, and a page's size when none is asked for. */
export const MAX_TABLE_PAGE_ROWS = 1_000;
export const DEFAULT_TABLE_PAGE_ROWS = 200;

export const tableQuery = z.object({
  path: pathParam,
  sheet: textParam("sheet"),
  offset: intParam("offset", 0).transform((n) => n ?? 0),
  /** Capped at MAX_TABLE_PAGE_ROWS rather than refused: a client asking for more gets a full page. */
  limit: intParam("limit", 0).transform((n) => Math.min(MAX_TABLE_PAGE_ROWS, n ?? DEFAULT_TABLE_PAGE_ROWS)),
  sort: intParam("sort", 0),
  dir: z
    .preprocess(
      (v) => (v === "" ? undefined : v),
      z.enum(["asc", "desc"], { message: '`dir` is "asc" or "desc".' }).optional(),
    )
    .transform((d) => d ?? "asc"),
});
export type TableQuery = z.output<typeof tableQuery>;
