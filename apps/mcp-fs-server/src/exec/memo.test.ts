import { describe, expect, it } from "vitest";
import { BoundedCache, contentKey } from "./memo.js";

describe("BoundedCache", () => {
  it("evicts the least recently used entry beyond its entry budget", () => {
    const c = new BoundedCache<string>(2, 100);
    c.set("a", "A", 1);
    c.set("b", "B", 1);
    expect(c.get("a")).toBe("A"); // a is now the youngest
    c.set("c", "C", 1);
    expect(c.get("b")).toBeUndefined();
    expect([c.get("a"), c.get("c"), c.size]).toEqual(["A", "C", 2]);
  });

  it("evicts by weight, and never keeps a value heavier than the whole budget", () => {
    const c = new BoundedCache<string>(10, 10);
    c.set("a", "A", 4);
    c.set("b", "B", 4);
    c.set("c", "C", 4);
    expect([c.get("a"), c.get("b"), c.get("c")]).toEqual([undefined, "B", "C"]);
    c.set("huge", "H", 11);
    expect(c.get("huge")).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it("replaces an entry set again under the same key, and its weight", () => {
    const c = new BoundedCache<string>(10, 10);
    c.set("a", "A1", 8);
    c.set("a", "A2", 2);
    c.set("b", "B", 8);
    expect([c.get("a"), c.get("b")]).toEqual(["A2", "B"]);
  });
});

describe("contentKey", () => {
  it("differs whenever the parts differ, also where their concatenation does not", () => {
    expect(contentKey("ab", "c")).not.toBe(contentKey("a", "bc"));
    expect(contentKey("x", new Uint8Array([1, 2]))).not.toBe(contentKey("x", new Uint8Array([1, 3])));
    expect(contentKey("x", new Uint8Array([104, 105]))).toBe(contentKey("x", "hi"));
  });
});
