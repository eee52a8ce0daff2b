/** Sorting for the table viewers: numeric-aware, stable, empty cells last in either direction. */

export type SortDir = "asc" | "desc";

export interface SortState {
  col: number;
  dir: SortDir;
}

/** Clicking a header: a new column sorts ascending, the same column flips direction. */
export function nextSort(current: SortState | undefined, col: number): SortState {
  if (current?.col === col) return { col, dir: current.dir === "asc" ? "desc" : "asc" };
  return { col, dir: "asc" };
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const THOUSANDS = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;

interface Key {
  empty: boolean;
  num: number;
  text: string;
}

function keyOf(cell: string | undefined): Key {
  const text = (cell ?? "").trim();
  // Thousands separators are common in exported sheets ("1,234.5"); a plain Number() would call them text.
  const bare = THOUSANDS.test(text) ? text.replaceAll(",", "") : text;
  const num = bare !== "" && NUMBER.test(bare) ? Number(bare) : NaN;
  return { empty: text === "", num, text };
}

/** Compares two cells: numbers numerically and before text, text with natural order ("a2" < "a10"). */
export function compareCells(a: string | undefined, b: string | undefined): number {
  return compareKeys(keyOf(a), keyOf(b));
}

function compareKeys(x: Key, y: Key): number {
  const xn = !Number.isNaN(x.num);
  const yn = !Number.isNaN(y.num);
  if (xn && yn) return x.num - y.num;
  if (xn !== yn) return xn ? -1 : 1;
  return collator.compare(x.text, y.text);
}

/**
 * The row indexes of `rows` in sorted order. Keys are computed once per row (100k-row sheets sort in
 * well under a second); ties keep file order, and empty cells stay at the bottom in both directions.
 */
export function sortedOrder(rows: readonly (readonly string[])[], sort: SortState | undefined): number[] {
  const order = rows.map((_, i) => i);
  if (!sort) return order;
  const keys = rows.map((r) => keyOf(r[sort.col]));
  const sign = sort.dir === "asc" ? 1 : -1;
  return order.sort((i, j) => {
    const a = keys[i]!;
    const b = keys[j]!;
    if (a.empty !== b.empty) return a.empty ? 1 : -1;
    return sign * compareKeys(a, b) || i - j;
  });
}
