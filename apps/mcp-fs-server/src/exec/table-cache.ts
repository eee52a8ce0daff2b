import path from "node:path";
import { BoundedCache, contentKey } from "./memo.js";
import { parseTable, type ParseTableOptions, type Table } from "./tables.js";

/*
 * readTable and sheets parse the same files again and again: the planner's inspection reads a
 * workbook's sheet names and then each sheet, and its chart reads the sheet once more. A parsed
 * table is kept by the file's bytes, name and options (see memo.ts); large tables are not kept.
 */

/** Tables with more cells than this are parsed on every call. */
const MAX_CACHED_CELLS = 50_000;
const parsed = new BoundedCache<Table>(16, 4 * MAX_CACHED_CELLS);

/** parseTable's result for these bytes, name and options; parsed once while it stays in the cache. */
export async function parseTableCached(
  bytes: Uint8Array,
  fileName: string,
  opts: ParseTableOptions = {},
): Promise<Table> {
  // The name is part of the key: it picks the parser and appears in warnings and errors.
  const key = contentKey(path.basename(fileName), `${typeof opts.sheet}:${opts.sheet ?? ""}`, bytes);
  const hit = parsed.get(key);
  if (hit !== undefined) return hit;
  const table = await parseTable(bytes, fileName, opts);
  const cells = table.rows.length * Math.max(1, table.columns.length);
  if (cells <= MAX_CACHED_CELLS) parsed.set(key, table, Math.max(1, cells));
  return table;
}
