import { existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readXlsx } from "@textide/shared/node";
import { sqlQueryOutput, TOOL, type SqlQueryOutput } from "@textide/shared";
import { connectInMemory, textOf, type Connected } from "./helpers/connect.js";

// Generated data: every expected number below is computed from these rows in the test itself.
const PEOPLE = [
  { name: "Ada", city: "London", age: 36, score: 9.5 },
  { name: "Grace", city: "New York", age: 85, score: 8.25 },
  { name: "Alan", city: "London", age: 41, score: 7 },
  { name: "Edsger", city: "Amsterdam", age: 72, score: 8 },
  { name: "Barbara", city: "New York", age: 51, score: 9 },
];
const header = "name,city,age,score";
const csv = [header, ...PEOPLE.map((p) => `${p.name},${p.city},${p.age},${p.score}`)].join("\n") + "\n";
const tsv = csv.replaceAll(",", "\t");
const BIG_ROWS = 12_345;
const big = ["id,grp,v", ...Array.from({ length: BIG_ROWS }, (_, i) => `${i},g${i % 7},${(i * 37) % 101}`)].join("\n");

let c: Connected;
beforeAll(async () => {
  c = await connectInMemory({
    files: {
      "gen/people.csv": csv,
      "gen/people.tsv": tsv,
      "gen/people.json": JSON.stringify(PEOPLE),
      "gen/people.jsonl": PEOPLE.map((p) => JSON.stringify(p)).join("\n"),
      "gen/people.ndjson": PEOPLE.map((p) => JSON.stringify(p)).join("\n"),
      "gen/big.csv": big,
      "gen/with space's.csv": csv,
    },
  });
}, 60_000);
afterAll(() => c.close());

type Sql = SqlQueryOutput & { isError: boolean; text: string };

async function sql(query: string, maxRows?: number): Promise<Sql> {
  const r = await c.call(TOOL.sqlQuery, { sql: query, ...(maxRows === undefined ? {} : { maxRows }) });
  return { ...sqlQueryOutput.parse(r.structuredContent), isError: r.isError === true, text: textOf(r) };
}

function byCity(): Map<string, { n: number; age: number }> {
  const m = new Map<string, { n: number; age: number }>();
  for (const p of PEOPLE) {
    const e = m.get(p.city) ?? { n: 0, age: 0 };
    m.set(p.city, { n: e.n + 1, age: e.age + p.age });
  }
  return m;
}

describe("sql_query reads each file type by its workspace path", () => {
  for (const ext of ["csv", "tsv", "json", "jsonl", "ndjson"]) {
    it(`groups .${ext}`, async () => {
      const r = await sql(
        `SELECT city, count(*) AS n, sum(age) AS age FROM 'gen/people.${ext}' GROUP BY city ORDER BY city`,
      );
      expect(r.isError).toBe(false);
      expect(r.columns.map((col) => col.name)).toEqual(["city", "n", "age"]);
      const expected = [...byCity()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v.n, v.age]);
      expect(r.rows).toEqual(expected);
      expect(r.rowCount).toBe(expected.length);
      expect(r.truncated).toBe(false);
    });
  }

  it("reads .parquet (written by COPY, then read back) and functions that take a path", async () => {
    const w = await sql(`COPY (SELECT * FROM 'gen/people.csv') TO 'generated_assets/people.parquet'`);
    expect(w.isError).toBe(false);
    const r = await sql(`SELECT avg(score) AS s FROM read_parquet('generated_assets/people.parquet')`);
    expect(r.rows[0]![0]).toBeCloseTo(PEOPLE.reduce((s, p) => s + p.score, 0) / PEOPLE.length, 10);
    const d = await sql(`SELECT count(*) FROM read_csv('gen/people.tsv', delim='\t', header=true) WHERE age > 50`);
    expect(d.rows).toEqual([[PEOPLE.filter((p) => p.age > 50).length]]);
  });

  it("sees a file's new content after it changed (the sandbox's copy is keyed by inode, size and times)", async () => {
    const file = path.join(c.ws.project, "gen/changing.csv");
    await writeFile(file, "k,v\na,1\nb,2\n");
    expect((await sql(`SELECT sum(v) FROM 'gen/changing.csv'`)).rows).toEqual([[3]]);
    expect((await sql(`SELECT sum(v) FROM 'gen/changing.csv'`)).rows).toEqual([[3]]);
    await writeFile(file, "k,v\na,1\nb,2\nc,40\n");
    expect((await sql(`SELECT sum(v) FROM 'gen/changing.csv'`)).rows).toEqual([[43]]);
    // The table form and read_csv (which gets the CSV itself) agree on columns, types and rows.
    const table = await sql(`SELECT * FROM 'gen/big.csv' ORDER BY id LIMIT 50`);
    const fn = await sql(`SELECT * FROM read_csv('gen/big.csv') ORDER BY id LIMIT 50`);
    expect(table.columns).toEqual(fn.columns);
    expect(table.rows).toEqual(fn.rows);
  });

  it("describes a file's columns (DESCRIBE 'path' and DESCRIBE SELECT)", async () => {
    for (const q of [`DESCRIBE 'gen/people.csv'`, `DESCRIBE SELECT * FROM 'gen/people.csv'`]) {
      const r = await sql(q);
      expect(r.isError, r.text).toBe(false);
      expect(r.rows.map((row) => row[0])).toEqual(["name", "city", "age", "score"]);
    }
  });

  it("quotes paths with a single quote in them the SQL way", async () => {
    const r = await sql(`SELECT count(*) FROM 'gen/with space''s.csv'`);
    expect(r.rows).toEqual([[PEOPLE.length]]);
  });

  it("reads .xlsx through the same reader as readTable: the same cells, first sheet by default", async () => {
    const bytes = await readFile(path.join(c.ws.project, "data/planets.xlsx"));
    const first = await readXlsx(bytes);
    const r = await sql(`SELECT * FROM 'data/planets.xlsx'`);
    expect(r.isError).toBe(false);
    expect(r.columns.map((col) => col.name)).toEqual(first.columns);
    expect(r.rows).toEqual(first.rows);
  });

  it("names another sheet after '#', by name (any case) or number", async () => {
    const bytes = await readFile(path.join(c.ws.project, "data/planets.xlsx"));
    const second = await readXlsx(bytes, { sheet: 2 });
    for (const ref of [second.sheet, second.sheet.toUpperCase(), "2"]) {
      const r = await sql(`SELECT * FROM 'data/planets.xlsx#${ref}'`);
      expect(r.isError, ref).toBe(false);
      expect(r.columns.map((col) => col.name)).toEqual(second.columns);
      expect(r.rows).toEqual(second.rows);
    }
    const bad = await sql(`SELECT * FROM 'data/planets.xlsx#Nope'`);
    expect(bad.isError).toBe(true);
    expect(bad.error?.message).toContain(first(second.sheets));
  });

  it("reads a sheet whose columns mix numbers, text and booleans as text, without JSON quotes", async () => {
    const file = path.join(c.ws.project, "gen/mixed.xlsx");
    await writeFile(
      file,
      workbook([
        ["id", "code", "flag"],
        [1, 7, true],
        [2, "x7", "yes"],
        [3, 9.5, false],
      ]),
    );
    const r = await sql(`SELECT * FROM 'gen/mixed.xlsx' ORDER BY id`);
    expect(r.columns.map((col) => col.type)).toEqual(["BIGINT", "VARCHAR", "VARCHAR"]);
    expect(r.rows).toEqual([
      [1, "7", "true"],
      [2, "x7", "yes"],
      [3, "9.5", "false"],
    ]);
  });

  it("reads a sheet with a header row and no data rows as a table of zero rows", async () => {
    // Header cells that look like numbers: DuckDB would take a lone such line for data, not names.
    const names = ["2020", 'Diameter "km", mean', "name"];
    await writeFile(path.join(c.ws.project, "gen/header-only.xlsx"), workbook([names]));
    const r = await sql(`SELECT * FROM 'gen/header-only.xlsx'`);
    expect(r).toMatchObject({ isError: false, rows: [], rowCount: 0, truncated: false });
    expect(r.columns.map((col) => col.name)).toEqual(names);
    // A zero-row table works like any other in the rest of a query.
    const n = await sql(`SELECT count(*) AS n, max("2020") AS top FROM 'gen/header-only.xlsx'`);
    expect(n).toMatchObject({ isError: false, rows: [[0, null]] });
  });

  it("joins two files of different formats", async () => {
    const r = await sql(
      `SELECT p.name, p.city FROM 'gen/people.json' p JOIN 'gen/people.csv' q ON p.name = q.name WHERE q.age > 45 ORDER BY p.name`,
    );
    const expected = PEOPLE.filter((p) => p.age > 45)
      .map((p) => [p.name, p.city])
      .sort((a, b) => a[0]!.localeCompare(b[0]!));
    expect(r.rows).toEqual(expected);
  });
});

const first = (xs: string[]) => xs[0]!;

/** A minimal one-sheet .xlsx: inline strings, numbers and booleans. */
function workbook(rows: (string | number | boolean)[][]): Uint8Array {
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const cell = (ref: string, v: string | number | boolean) =>
    typeof v === "number"
      ? `<c r="${ref}"><v>${v}</v></c>`
      : typeof v === "boolean"
        ? `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`
        : `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`;
  const sheet = rows
    .map((cells, r) => `<row r="${r + 1}">${cells.map((v, k) => cell(`${"ABC"[k]}${r + 1}`, v)).join("")}</row>`)
    .join("");
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0"?><workbook ${ns} xmlns:r="${rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(
      `<?xml version="1.0"?><worksheet ${ns}><sheetData>${sheet}</sheetData></worksheet>`,
    ),
  });
}

describe("isolation between calls", () => {
  it("starts every call from an empty database: tables, views and macros of one call are gone in the next", async () => {
    const made = await sql(`CREATE TABLE t AS SELECT 1 AS x; CREATE VIEW v AS SELECT 2 AS y;
      CREATE MACRO plus_one(a) AS a + 1; SELECT plus_one(x) FROM t`);
    expect(made).toMatchObject({ isError: false, rows: [[2]] });
    // Several calls, so that each of the pool's workers has been asked.
    for (let i = 0; i < 4; i++) {
      for (const probe of ["SELECT * FROM t", "SELECT * FROM v", "SELECT plus_one(1)"]) {
        const r = await sql(probe);
        expect(r.isError, probe).toBe(true);
        expect(r.error?.kind).toBe("runtime");
      }
      expect((await sql("SELECT count(*) FROM duckdb_tables()")).rows).toEqual([[0]]);
    }
  });
});

describe("values are JSON-safe", () => {
  it("integers, big integers, decimals, dates, timestamps, nulls, lists and structs", async () => {
    const r = await sql(`SELECT 42::BIGINT AS i, 9007199254740993::BIGINT AS big, 12.345::DECIMAL(10,3) AS d,
      DATE '2024-05-01' AS day, TIMESTAMP '2024-05-01 13:45:00.5' AS ts, NULL AS nothing,
      [1, 2] AS list, {'a': 1} AS obj, 'x' AS s, true AS b, 1.5::DOUBLE AS f`);
    expect(r.rows).toEqual([
      [42, "9007199254740993", 12.345, "2024-05-01", "2024-05-01T13:45:00.5", null, [1, 2], { a: 1 }, "x", true, 1.5],
    ]);
    expect(r.columns.map((col) => col.type)).toEqual([
      "BIGINT",
      "BIGINT",
      "DECIMAL(10,3)",
      "DATE",
      "TIMESTAMP",
      "INTEGER",
      "INTEGER[]",
      'STRUCT("a" INTEGER)',
      "VARCHAR",
      "BOOLEAN",
      "DOUBLE",
    ]);
  });
});

describe("caps", () => {
  it("returns 200 rows by default and says the result was truncated", async () => {
    const r = await sql(`SELECT * FROM 'gen/big.csv'`);
    expect(r.rowCount).toBe(200);
    expect(r.rows).toHaveLength(200);
    expect(r.truncated).toBe(true);
    expect(r.text).toMatch(/200 rows returned.*more/);
    // The Markdown preview is bounded: 20 data rows, not 200.
    expect(r.text.split("\n").filter((l) => l.startsWith("| ")).length).toBe(22);
  });

  it("honours maxRows up to 10,000 and rejects more", async () => {
    const r = await sql(`SELECT id FROM 'gen/big.csv' ORDER BY id`, 10_000);
    expect(r.rowCount).toBe(10_000);
    expect(r.rows.at(-1)).toEqual([9_999]);
    expect(r.truncated).toBe(true);
    const all = await sql(`SELECT count(*), sum(v) FROM 'gen/big.csv'`);
    let sum = 0;
    for (let i = 0; i < BIG_ROWS; i++) sum += (i * 37) % 101;
    expect(all.rows).toEqual([[BIG_ROWS, sum]]);
    const over = await c.call(TOOL.sqlQuery, { sql: "SELECT 1", maxRows: 10_001 });
    expect(over.isError).toBe(true);
  });

  it("stops at the reply size cap before maxRows when rows are wide", async () => {
    const r = await sql(`SELECT repeat('x', 2000) AS wide FROM range(5000)`, 5000);
    expect(r.truncated).toBe(true);
    expect(r.rowCount).toBeLessThan(5000);
    expect(JSON.stringify(r.rows).length).toBeLessThan(700_000);
    expect(r.text).toContain("reply size cap");
  });
});

describe("COPY … TO generated_assets", () => {
  it("writes csv, json and parquet atomically and lists them in outputs", async () => {
    const r =
      await sql(`CREATE TABLE london AS SELECT name, age FROM 'gen/people.csv' WHERE city = 'London' ORDER BY name;
      COPY london TO 'generated_assets/out/london.csv';
      COPY london TO 'generated_assets/out/london.json';
      COPY london TO 'generated_assets/out/london.parquet';
      SELECT count(*) AS n FROM london`);
    expect(r.isError).toBe(false);
    const london = PEOPLE.filter((p) => p.city === "London").sort((a, b) => a.name.localeCompare(b.name));
    expect(r.rows).toEqual([[london.length]]);
    expect(r.outputs.map((o) => o.path)).toEqual([
      "generated_assets/out/london.csv",
      "generated_assets/out/london.json",
      "generated_assets/out/london.parquet",
    ]);
    const csvOut = await readFile(path.join(c.ws.assets, "out/london.csv"), "utf8");
    expect(csvOut.trim().split("\n")).toEqual(["name,age", ...london.map((p) => `${p.name},${p.age}`)]);
    for (const o of r.outputs) {
      expect(o.bytes).toBe((await stat(path.join(c.ws.base, o.path))).size);
    }
    expect(r.outputs.map((o) => o.mime)).toEqual(["text/csv", "application/json", expect.any(String)]);
    expect(r.text).toContain("generated_assets/out/london.csv");
    // No temp files are left beside the outputs.
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(path.join(c.ws.assets, "out"))).sort()).toEqual([
      "london.csv",
      "london.json",
      "london.parquet",
    ]);
  });

  it("writes nothing when a later statement fails", async () => {
    const r = await sql(
      `COPY (SELECT 1 AS x) TO 'generated_assets/never.csv'; SELECT no_such_column FROM 'gen/people.csv'`,
    );
    expect(r.isError).toBe(true);
    expect(r.outputs).toEqual([]);
    await expect(stat(path.join(c.ws.assets, "never.csv"))).rejects.toThrow();
  });
});

describe("errors the model can act on", () => {
  it("syntax, missing file, missing column", async () => {
    const syntax = await sql("SELEC 1");
    expect(syntax).toMatchObject({ isError: true, error: { kind: "syntax" } });
    const missing = await sql("SELECT * FROM 'data/nope.csv'");
    expect(missing).toMatchObject({ isError: true, error: { kind: "runtime" } });
    expect(missing.error?.message).toMatch(/does not exist.*fs_search_files/);
    const column = await sql("SELECT nope FROM 'gen/people.csv'");
    expect(column.error?.kind).toBe("runtime");
    expect(column.error?.message).toContain("nope");
    // The user's path, never the sandbox's copy, is named in messages.
    const cast = await sql("SELECT name::INTEGER FROM 'gen/people.csv'");
    expect(cast.error?.message).not.toMatch(/textide-sql-|\/in\//);
  });
});

describe("the exec audit log", () => {
  it("has a line per query, with language sql and the query's outcome", async () => {
    const auditLines = async () =>
      (await readFile(path.join(c.ws.base, "audit", "exec.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await sql("SELECT count(*) AS n FROM 'gen/people.csv'");
    await sql("SELEC 1");
    const [ok, failed] = (await auditLines()).slice(-2);
    expect(ok).toMatchObject({
      language: "sql",
      outcome: "ok",
      codePreview: "SELECT count(*) AS n FROM 'gen/people.csv'",
    });
    expect(failed).toMatchObject({ language: "sql", outcome: "syntax", codePreview: "SELEC 1" });
    expect(["bubblewrap", "none"]).toContain(ok!.sandbox);
  });
});

describe("without bubblewrap", () => {
  it("runs in a scratch folder of its own and removes those of workers that were killed", async () => {
    const orphan = path.join(os.tmpdir(), "textide-sql-4194000-orphan");
    await mkdir(path.join(orphan, "in"), { recursive: true });
    const plain = await connectInMemory({
      copySample: false,
      files: { "a.csv": "x\n1\n2\n" },
      sql: { sandbox: "none" },
    });
    try {
      const r = await plain.call(TOOL.sqlQuery, { sql: "SELECT sum(x) AS s FROM 'a.csv'" });
      expect(sqlQueryOutput.parse(r.structuredContent).rows).toEqual([[3]]);
      expect(existsSync(orphan)).toBe(false);
    } finally {
      await plain.close();
      await rm(orphan, { recursive: true, force: true });
    }
  });
});
