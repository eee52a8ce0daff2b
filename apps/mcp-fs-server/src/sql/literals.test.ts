import { describe, expect, it } from "vitest";
import { findLiterals, sqlString } from "./literals.js";
import { splitSheet } from "./staging.js";

const values = (sql: string) => findLiterals(sql).map((l) => [l.before, l.value]);

describe("findLiterals", () => {
  it("finds plain literals with the keyword before them, '' unescaped", () => {
    expect(values("SELECT * FROM 'a.csv' JOIN 'b''s.json' b ON x = 'y'")).toEqual([
      ["FROM", "a.csv"],
      ["JOIN", "b's.json"],
      ["=", "y"],
    ]);
    expect(values("COPY (SELECT 1) TO 'generated_assets/x.csv' (FORMAT csv)")).toEqual([
      ["TO", "generated_assets/x.csv"],
    ]);
    expect(values("SELECT * FROM read_csv('a.csv', delim=';')")).toEqual([
      ["(", "a.csv"],
      ["=", ";"],
    ]);
  });

  it("skips comments, identifiers, E'' strings and dollar-quoted strings", () => {
    const sql = `-- FROM 'c1.csv'
      /* 'c2.csv' */ SELECT "it's" , E'\\'e.csv', $$d.csv$$, $t$x'y$t$, $1 FROM 'real.csv'`;
    expect(values(sql)).toEqual([["FROM", "real.csv"]]);
  });

  it("stops at an unterminated quote (DuckDB rejects the SQL)", () => {
    expect(values("SELECT 'a', 'b")).toEqual([["SELECT", "a"]]);
  });

  it("gives offsets that cut the literal out exactly", () => {
    const sql = "SELECT * FROM 'x''y.csv'";
    const [lit] = findLiterals(sql);
    expect(sql.slice(lit!.start, lit!.end)).toBe(sqlString("x'y.csv"));
  });
});

describe("splitSheet", () => {
  it("splits a workbook's sheet after '#', and leaves other paths alone", () => {
    expect(splitSheet("data/p.xlsx#Moons")).toEqual({ file: "data/p.xlsx", sheet: "Moons" });
    expect(splitSheet("data/P.XLSX#2")).toEqual({ file: "data/P.XLSX", sheet: "2" });
    expect(splitSheet("data/#1.csv")).toEqual({ file: "data/#1.csv" });
  });
});
