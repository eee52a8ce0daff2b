import { describe, expect, it } from "vitest";
import { nextSort } from "../lib/table-sort.js";

// How a column sorts is tested with the server-side sort (packages/shared/src/node/tables/sort.test.ts).
describe("table sort state", () => {
  it("toggles asc/desc on the same column and starts asc on another", () => {
    const a = nextSort(undefined, 2);
    expect(a).toEqual({ col: 2, dir: "asc" });
    expect(nextSort(a, 2)).toEqual({ col: 2, dir: "desc" });
    expect(nextSort(nextSort(a, 2), 2)).toEqual({ col: 2, dir: "asc" });
    expect(nextSort(nextSort(a, 2), 0)).toEqual({ col: 0, dir: "asc" });
  });
});
