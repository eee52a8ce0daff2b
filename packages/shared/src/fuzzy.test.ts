import { describe, expect, it } from "vitest";
import { fuzzyMatch, normalizeQuery } from "./fuzzy.js";

const rank = (query: string, paths: string[]): string[] =>
  paths
    .map((p) => ({ p, m: fuzzyMatch(normalizeQuery(query), p) }))
    .filter((x) => x.m !== undefined)
    .sort((a, b) => b.m!.score - a.m!.score)
    .map((x) => x.p);

describe("fuzzyMatch", () => {
  it("needs every query character in order", () => {
    expect(fuzzyMatch("pnt", "data/planets.xlsx")).toBeDefined();
    expect(fuzzyMatch("tnp", "data/planets.xlsx")).toBeUndefined();
  });

  it("finds the contiguous run in the base name, not the first scattered letters", () => {
    expect(fuzzyMatch("plan", "p/l/a/n/plan.md")?.positions).toEqual([8, 9, 10, 11]);
  });

  it("ranks exact base names, then prefixes, then scattered matches; shorter paths first", () => {
    expect(
      rank("planets", ["x/plain/abc/nets.txt", "rank/planets-notes.md", "a/b/c/planets.xlsx", "planets.xlsx"]),
    ).toEqual(["planets.xlsx", "a/b/c/planets.xlsx", "rank/planets-notes.md", "x/plain/abc/nets.txt"]);
  });

  it("rewards word starts and camelCase humps", () => {
    expect(rank("fb", ["src/afoobar.ts", "src/FooBar.ts"])[0]).toBe("src/FooBar.ts");
    expect(rank("fb", ["src/afoobar.ts", "src/foo-bar.ts"])[0]).toBe("src/foo-bar.ts");
  });

  it("ignores case and whitespace in the query", () => {
    expect(normalizeQuery(" Data Pla ")).toBe("datapla");
  });
});
