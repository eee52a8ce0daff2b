import { describe, expect, it } from "vitest";
import { compareCells, sortedOrder } from "./sort.js";

const sorted = (values: string[], dir: "asc" | "desc"): string[] =>
  Array.from(sortedOrder(values, dir), (i) => values[i]!);

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
    const asc = Array.from(
      sortedOrder(
        rows.map((r) => r[0]!),
        "asc",
      ),
      (i) => rows[i]![1],
    );
    expect(asc).toEqual(["first", "third", "second", "fourth"]);
    const desc = Array.from(
      sortedOrder(
        rows.map((r) => r[0]!),
        "desc",
      ),
      (i) => rows[i]![1],
    );
    expect(desc).toEqual(["second", "fourth", "first", "third"]);
  });

  it("sorts 100,000 rows with the number keys in order", () => {
    const cells = Array.from({ length: 100_000 }, (_, i) => String((i * 7919) % 100_003));
    const order = sortedOrder(cells, "desc");
    for (let i = 1; i < order.length; i++) expect(Number(cells[order[i - 1]!]) >= Number(cells[order[i]!])).toBe(true);
  });
});
