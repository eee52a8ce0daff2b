import { describe, expect, it } from "vitest";
import { compareCells, nextSort, sortedOrder } from "../lib/table-sort.js";

const col = (values: string[]): string[][] => values.map((v) => [v]);
const sorted = (values: string[], dir: "asc" | "desc"): string[] =>
  sortedOrder(col(values), { col: 0, dir }).map((i) => values[i]!);

describe("table sorting", () => {
  it("sorts numbers numerically, not as text", () => {
    expect(sorted(["10", "9", "100", "-2", "1.5"], "asc")).toEqual(["-2", "1.5", "9", "10", "100"]);
  });

  it("reads thousands separators and exponents as numbers", () => {
    expect(sorted(["1,234", "999", "2e3"], "asc")).toEqual(["999", "1,234", "2e3"]);
  });

  it("does not read a decimal comma list as one number", () => {
    expect(compareCells("1,2", "3")).toBeGreaterThan(0);
  });

  it("puts numbers before text and orders text naturally, case-insensitively", () => {
    expect(sorted(["b", "A10", "a2", "5"], "asc")).toEqual(["5", "a2", "A10", "b"]);
  });

  it("keeps empty cells last in both directions", () => {
    expect(sorted(["2", "", "1", " "], "asc")).toEqual(["1", "2", "", " "]);
    expect(sorted(["2", "", "1"], "desc")).toEqual(["2", "1", ""]);
  });

  it("is stable: ties keep file order in both directions", () => {
    const rows = [
      ["x", "first"],
      ["y", "second"],
      ["x", "third"],
      ["y", "fourth"],
    ];
    const asc = sortedOrder(rows, { col: 0, dir: "asc" }).map((i) => rows[i]![1]);
    expect(asc).toEqual(["first", "third", "second", "fourth"]);
    const desc = sortedOrder(rows, { col: 0, dir: "desc" }).map((i) => rows[i]![1]);
    expect(desc).toEqual(["second", "fourth", "first", "third"]);
  });

  it("leaves the order alone without a sort", () => {
    expect(sortedOrder(col(["b", "a"]), undefined)).toEqual([0, 1]);
  });

  it("toggles asc/desc on the same column and starts asc on another", () => {
    const a = nextSort(undefined, 2);
    expect(a).toEqual({ col: 2, dir: "asc" });
    expect(nextSort(a, 2)).toEqual({ col: 2, dir: "desc" });
    expect(nextSort(nextSort(a, 2), 2)).toEqual({ col: 2, dir: "asc" });
    expect(nextSort(nextSort(a, 2), 0)).toEqual({ col: 0, dir: "asc" });
  });

  it("sorts 100,000 rows quickly", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => [String((i * 7919) % 100_003), `r${i}`]);
    const t0 = performance.now();
    const order = sortedOrder(rows, { col: 0, dir: "desc" });
    expect(performance.now() - t0).toBeLessThan(2_000);
    for (let i = 1; i < order.length; i++)
      expect(Number(rows[order[i - 1]!]![0]) >= Number(rows[order[i]!]![0])).toBe(true);
  });
});
