import { describe, expect, it } from "vitest";
import { SessionTable } from "./session-table.js";

describe("SessionTable", () => {
  it("evicts the least recently used session of the same token past the per-token limit", () => {
    const t = new SessionTable<string>({ perToken: 2, total: 10 });
    expect(t.add("a", "tok", "A", 1)).toEqual([]);
    expect(t.add("b", "tok", "B", 2)).toEqual([]);
    expect(t.add("x", "other", "X", 3)).toEqual([]);
    expect(t.touch("a", 4)).toBe("A");
    expect(t.add("c", "tok", "C", 5)).toEqual([["b", "B"]]);
    expect(t.touch("b")).toBeUndefined();
    expect(t.size).toBe(3);
  });

  it("evicts the least recently used session of any token past the total limit", () => {
    const t = new SessionTable<string>({ perToken: 10, total: 2 });
    t.add("a", "one", "A", 1);
    t.add("b", "two", "B", 2);
    expect(t.add("c", "two", "C", 3)).toEqual([["a", "A"]]);
    // Token "one" has no sessions left, so its count must allow new ones again.
    expect(t.add("d", "one", "D", 4)).toEqual([["b", "B"]]);
  });

  it("hands back idle sessions by last use and forgets deleted ones", () => {
    const t = new SessionTable<string>({ perToken: 5, total: 5 });
    t.add("a", "k", "A", 1);
    t.add("b", "k", "B", 2);
    t.add("c", "k", "C", 3);
    t.touch("a", 10);
    expect(t.takeIdle(5)).toEqual([
      ["b", "B"],
      ["c", "C"],
    ]);
    expect(t.delete("a")).toBe("A");
    expect(t.size).toBe(0);
    for (const id of ["1", "2", "3", "4", "5"]) expect(t.add(id, "k", id, 20)).toEqual([]);
  });

  it("refuses limits below one", () => {
    expect(() => new SessionTable({ perToken: 0, total: 1 })).toThrow(RangeError);
  });
});
