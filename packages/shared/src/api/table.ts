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
