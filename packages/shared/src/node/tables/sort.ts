/*
 * How the table viewer sorts a column, on the server where the rows are (a paged table is never all in
 * the browser): numbers (incl. `1,234` and `2e3`) numerically and before text, text with a numeric
 * collator ("a2" < "a10"), empty cells last in both directions, ties in file order.
 */

export type SortDir = "asc" | "desc";

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

function compareKeys(x: Key, y: Key): number {
  const xn = !Number.isNaN(x.num);
  const yn = !Number.isNaN(y.num);
  if (xn && yn) return x.num - y.num;
  if (xn !== yn) return xn ? -1 : 1;
  return collator.compare(x.text, y.text);
}

/** Compares two cells: numbers numerically and before text, text in natural order. */
export function compareCells(a: string | undefined, b: string | undefined): number {
  return compareKeys(keyOf(a), keyOf(b));
}

/** Row positions of one column's cells in sorted order; keys are computed once per cell. */
export function sortedOrder(cells: readonly string[], dir: SortDir): Uint32Array {
  const keys = cells.map(keyOf);
  const sign = dir === "asc" ? 1 : -1;
  const order = Array.from({ length: cells.length }, (_, i) => i);
  order.sort((i, j) => {
    const a = keys[i]!;
    const b = keys[j]!;
    if (a.empty !== b.empty) return a.empty ? 1 : -1;
    return sign * compareKeys(a, b) || i - j;
  });
  return Uint32Array.from(order);
}
