import { describe, expect, it } from "vitest";
import { parseIntent } from "../../src/planner/intent/parse.js";
import { compile, compileJoin, type TableSchema } from "../../src/planner/transform/compile.js";
import { parseTransform } from "../../src/planner/transform/request.js";
import { columnType, valuesSql, type ValueHit } from "../../src/planner/transform/sql.js";

/* Request → SQL without a server: the statement for each shape, and the words that map nowhere. */

const col = (name: string, sqlType: string) => ({ name, sqlType, type: columnType(sqlType) });
const MISSIONS: TableSchema = {
  path: "data/missions.json",
  columns: [col("name", "VARCHAR"), col("agency", "VARCHAR"), col("launch_year", "BIGINT"), col("target", "VARCHAR")],
};
const PLANETS: TableSchema = {
  path: "data/planets.xlsx",
  columns: [col("Planet", "VARCHAR"), col("Type", "VARCHAR"), col("Diameter (km)", "BIGINT"), col("Moons", "BIGINT")],
};
const MOONS: TableSchema = {
  path: "data/moons/major-moons.tsv",
  columns: [col("Moon", "VARCHAR"), col("Planet", "VARCHAR"), col("Diameter (km)", "DOUBLE")],
};

function sql(request: string, schema: TableSchema, hits: ValueHit[] = []) {
  const intent = parseIntent(request);
  const r = compile(parseTransform(intent, []), schema, hits);
  if (!r.ok) throw new Error(`unmapped: ${r.unmapped.join(", ")}`);
  return r.compiled.sql;
}

describe("compile", () => {
  it("counts with a value found inside longer values as a whole-word match", () => {
    const hits = [
      { column: "target", value: "Mars (Gale crater)" },
      { column: "target", value: "Mars (Jezero crater)" },
    ];
    expect(sql("how many missions went to Mars?", MISSIONS, hits)).toBe(
      `SELECT count(*) AS "count" FROM 'data/missions.json' WHERE regexp_matches(CAST("target" AS VARCHAR), '(?i)\\bmars\\b')`,
    );
  });

  it("uses equality when the value is only ever a whole cell", () => {
    expect(sql("how many missions did ISRO send?", MISSIONS, [{ column: "agency", value: "ISRO" }])).toContain(
      `WHERE "agency" = 'ISRO'`,
    );
  });

  it("compiles comparisons on the column named after or before the number", () => {
    expect(sql("planets with more than 10 moons", PLANETS)).toBe(
      `SELECT * FROM 'data/planets.xlsx' WHERE "Moons" > 10`,
    );
    expect(sql("planets with a diameter of at least 50000", PLANETS)).toContain(`WHERE "Diameter (km)" >= 50000`);
    expect(sql("missions launched before 2000", MISSIONS)).toContain(`WHERE "launch_year" < 2000`);
  });

  it("aggregates, with and without groups", () => {
    expect(sql("average diameter of the planets", PLANETS)).toBe(
      `SELECT avg("Diameter (km)") AS "average Diameter (km)", count("Diameter (km)") AS "values" FROM 'data/planets.xlsx'`,
    );
    expect(sql("median diameter per type", PLANETS)).toBe(
      `SELECT "Type", median("Diameter (km)") AS "median Diameter (km)" FROM 'data/planets.xlsx' GROUP BY "Type" ORDER BY "median Diameter (km)" DESC NULLS LAST`,
    );
  });

  it("sorts, limits and lists distinct values", () => {
    expect(sql("planets sorted by diameter descending", PLANETS)).toBe(
      `SELECT * FROM 'data/planets.xlsx' ORDER BY "Diameter (km)" DESC NULLS LAST`,
    );
    expect(sql("distinct types of planets", PLANETS)).toBe(
      `SELECT DISTINCT "Type" FROM 'data/planets.xlsx' ORDER BY 1`,
    );
  });

  it("converts and exports with COPY into generated_assets", () => {
    const intent = parseIntent("convert planets.xlsx to json");
    const r = compile(parseTransform(intent, []), PLANETS, []);
    expect(r.ok && r.compiled.sql).toBe(
      `COPY (SELECT * FROM 'data/planets.xlsx') TO 'generated_assets/planets.json' (FORMAT json, ARRAY true)`,
    );
  });

  it("joins on the named column, renaming the right side's clashing columns", () => {
    const req = parseTransform(parseIntent("join major-moons.tsv with planets.xlsx on planet"), ["planets.xlsx"]);
    const r = compileJoin(req, MOONS, PLANETS);
    expect(r.ok && r.compiled.sql).toBe(
      `SELECT l.*, r."Type", r."Diameter (km)" AS "Diameter (km) (planet)", r."Moons" FROM 'data/moons/major-moons.tsv' AS l ` +
        `JOIN 'data/planets.xlsx' AS r ON l."Planet" = r."Planet"`,
    );
  });

  it("returns the words that name nothing instead of a statement", () => {
    const r = compile(parseTransform(parseIntent("how many missions went to Venus?"), []), MISSIONS, []);
    expect(r).toEqual({ ok: false, unmapped: ["venus"] });
    const cmp = compile(parseTransform(parseIntent("planets with more than 3 volcanoes"), []), PLANETS, []);
    expect(cmp.ok).toBe(false);
    expect(!cmp.ok && cmp.unmapped.join(" ")).toContain("volcanoes");
  });

  it("looks up value words only in text columns, as whole words", () => {
    const q = valuesSql("data/missions.json", MISSIONS.columns, ["south korea", "mars"]);
    expect(q.split("UNION ALL")).toHaveLength(3);
    expect(q).toContain(`'(?i)\\b(south\\s+korea|mars)\\b'`);
    expect(q).not.toContain('"launch_year"');
  });
});
