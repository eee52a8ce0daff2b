/** The table viewer's sort state; the server sorts (`GET /api/table?sort=&dir=`), since a page is all it sends. */

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
