import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ExecError } from "./errors.js";
import { columnNames, parseTable, type Table } from "./tables.js";

/** The sample workspace; read only. */
const PROJECT_ROOT = fileURLToPath(new URL("../../../../project_root/", import.meta.url));

async function readSample(rel: string, opts?: { sheet?: string | number }): Promise<Table> {
  return parseTable(await readFile(PROJECT_ROOT + rel), PROJECT_ROOT + rel, opts);
}

const enc = (s: string) => new TextEncoder().encode(s);

/** Cell XML: strings inline, `d:` a date serial styled with the built-in date format 14, `dt:` date-time (22). */
function cellXml(ref: string, v: string | number | boolean): string {
  if (typeof v === "number") return `<c r="${ref}"><v>${v}</v></c>`;
  if (typeof v === "boolean") return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  if (v.startsWith("d:")) return `<c r="${ref}" s="1"><v>${v.slice(2)}</v></c>`;
  if (v.startsWith("dt:")) return `<c r="${ref}" s="2"><v>${v.slice(3)}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`;
}

/** A minimal but valid .xlsx workbook built in memory, one sheet per entry. */
function workbook(sheets: Record<string, (string | number | boolean | null)[][]>): Uint8Array {
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const names = Object.keys(sheets);
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0"?><workbook ${ns} xmlns:r="${rel}"><sheets>` +
        names.map((n, i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("") +
        "</sheets></workbook>",
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        names
          .map(
            (_, i) => `<Relationship Id="rId${i + 1}" Type="${rel}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
          )
          .join("") +
        `<Relationship Id="rIdS" Type="${rel}/styles" Target="styles.xml"/></Relationships>`,
    ),
    "xl/styles.xml": strToU8(
      `<?xml version="1.0"?><styleSheet ${ns}><cellXfs count="3">` +
        '<xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="22" applyNumberFormat="1"/>' +
        "</cellXfs></styleSheet>",
    ),
  };
  names.forEach((name, i) => {
    const rows = sheets[name]!.map(
      (cells, r) =>
        `<row r="${r + 1}">` +
        cells.map((v, c) => (v === null ? "" : cellXml(`${String.fromCharCode(65 + c)}${r + 1}`, v))).join("") +
        "</row>",
    );
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(
      `<?xml version="1.0"?><worksheet ${ns}><sheetData>${rows.join("")}</sheetData></worksheet>`,
    );
  });
  return zipSync(files);
}

async function failure(p: Promise<unknown>): Promise<ExecError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExecError);
  return err as ExecError;
}

/** Every row is a plain data object that copies cleanly (what isolated-vm's ExternalCopy needs). */
function expectPlainRows(table: Table): void {
  for (const row of table.rows) {
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(table.columns);
    for (const v of Object.values(row)) {
      expect(v === null || ["string", "number", "boolean"].includes(typeof v)).toBe(true);
    }
  }
  expect(structuredClone(table.rows)).toEqual(table.rows);
}

describe("parseTable on the sample workspace", () => {
  it("reads the first sheet of planets.xlsx by default, numbers as numbers", async () => {
    const t = await readSample("data/planets.xlsx");
    expect(t.sheet).toBe("Planets");
    expect(t.sheets).toEqual(["Planets", "Dwarf planets"]);
    expect(t.columns).toEqual([
      "Planet",
      "Type",
      "Diameter (km)",
      "Mass (10^24 kg)",
      "Mean distance from Sun (10^6 km)",
      "Moons",
      "Orbital period (days)",
      "Mean temperature (C)",
    ]);
    expect(t.rows).toHaveLength(8);
    const jupiter = t.rows.find((r) => r.Planet === "Jupiter");
    expect(jupiter).toMatchObject({ Type: "Gas giant", "Diameter (km)": 142984, "Mass (10^24 kg)": 1898, Moons: 95 });
    expect(t.rows.find((r) => r.Planet === "Mars")?.["Mean temperature (C)"]).toBe(-65);
    expect(t.rows.find((r) => r.Planet === "Mars")?.["Mass (10^24 kg)"]).toBe(0.642);
    expectPlainRows(t);
  });

  it("reads the second sheet by name and by 1-based number", async () => {
    const byName = await readSample("data/planets.xlsx", { sheet: "Dwarf planets" });
    expect(byName.sheet).toBe("Dwarf planets");
    expect(byName.columns).toEqual(["Dwarf planet", "Diameter (km)", "Mean distance from Sun (10^6 km)", "Moons"]);
    expect(byName.rows).toHaveLength(5);
    expect(byName.rows.find((r) => r["Dwarf planet"] === "Pluto")).toEqual({
      "Dwarf planet": "Pluto",
      "Diameter (km)": 2376.6,
      "Mean distance from Sun (10^6 km)": 5906.4,
      Moons: 5,
    });
    const byNumber = await readSample("data/planets.xlsx", { sheet: 2 });
    expect(byNumber.rows).toEqual(byName.rows);
    // A case/whitespace slip in the name still finds the sheet.
    expect((await readSample("data/planets.xlsx", { sheet: "dwarf planets " })).sheet).toBe("Dwarf planets");
  });

  it("names the sheets when the sheet is unknown", async () => {
    const e = await failure(readSample("data/planets.xlsx", { sheet: "Moons" }));
    expect(e.kind).toBe("runtime");
    expect(e.message).toContain('Sheet "Moons" not found; sheets are: "Planets", "Dwarf planets"');
    const n = await failure(readSample("data/planets.xlsx", { sheet: 3 }));
    expect(n.message).toContain("Sheet 3 not found");
    expect(n.message).toContain('"Dwarf planets"');
  });

  it("reads the moons TSV, an empty numeric cell becoming null", async () => {
    const t = await readSample("data/moons/major-moons.tsv");
    expect(t.columns).toEqual(["Moon", "Planet", "Diameter (km)", "Discovered (year)", "Discoverer"]);
    expect(t.rows).toHaveLength(16);
    expect(t.rows[0]).toEqual({
      Moon: "Moon",
      Planet: "Earth",
      "Diameter (km)": 3474.8,
      "Discovered (year)": null,
      Discoverer: "Known since prehistory",
    });
    expect(t.rows.find((r) => r.Moon === "Ganymede")).toMatchObject({
      "Diameter (km)": 5268.2,
      "Discovered (year)": 1610,
    });
    expect(t.rows.find((r) => r.Moon === "Charon")?.Planet).toBe("Pluto (dwarf planet)");
    expect(t.sheet).toBeUndefined();
    expectPlainRows(t);
  });

  it("reads missions.json, keeping nulls", async () => {
    const t = await readSample("data/missions.json");
    expect(t.columns).toEqual(["name", "agency", "launch_year", "target", "status", "cost_usd_millions"]);
    expect(t.rows).toHaveLength(14);
    expect(t.rows[0]).toMatchObject({ name: "Voyager 1", launch_year: 1977, cost_usd_millions: null });
    expect(t.rows.find((r) => r.name === "James Webb Space Telescope")?.cost_usd_millions).toBe(10000);
    expectPlainRows(t);
  });

  it("reads observatories.csv with quoted commas, escaped quotes and non-ASCII text", async () => {
    const t = await readSample("data/observatories.csv");
    expect(t.columns).toEqual([
      "Observatory",
      "Location",
      "Country",
      "Latitude",
      "Longitude",
      "Elevation (m)",
      "Founded",
      "Notable telescope",
    ]);
    expect(t.rows).toHaveLength(15);
    expect(t.rows[0]).toEqual({
      Observatory: "Observatorio del Roque de los Muchachos",
      Location: "La Palma, Canary Islands",
      Country: "Spain",
      Latitude: 28.7606,
      Longitude: -17.885,
      "Elevation (m)": 2396,
      Founded: 1985,
      "Notable telescope": "Gran Telescopio Canarias (10.4 m)",
    });
    expect(t.rows[1]?.Location).toBe("Izaña, Tenerife");
    expect(t.rows.find((r) => r.Observatory === "Royal Observatory, Greenwich")?.Longitude).toBe(-0.0015);
    expect(t.rows.find((r) => r.Observatory === "Palomar Observatory")?.["Notable telescope"]).toBe(
      'Hale Telescope (5.1 m, "the Big Eye")',
    );
    expect(t.rows.find((r) => r.Observatory === "Paranal Observatory")?.["Notable telescope"]).toBe(
      "Very Large Telescope (4 × 8.2 m)",
    );
    expectPlainRows(t);
  });

  it("reads the exoplanet report and the launches table", async () => {
    const exo = await readSample("reports/2024/exoplanet-discoveries.csv");
    expect(exo.columns).toEqual(["Year", "Transit", "Radial velocity", "Microlensing", "Imaging", "Other"]);
    expect(exo.rows).toHaveLength(15);
    expect(exo.rows.find((r) => r.Year === 2016)).toEqual({
      Year: 2016,
      Transit: 1428,
      "Radial velocity": 48,
      Microlensing: 14,
      Imaging: 4,
      Other: 1,
    });
    const launches = await readSample("data/launches-by-year.csv");
    expect(launches.columns).toEqual(["Year", "Orbital launch attempts", "Successes"]);
    expect(launches.rows).toHaveLength(10);
    expect(launches.rows.at(-1)).toEqual({ Year: 2024, "Orbital launch attempts": 261, Successes: 253 });
    const total = launches.rows.reduce((s, r) => s + (r.Successes as number), 0);
    expect(total).toBe(80 + 82 + 83 + 111 + 97 + 104 + 136 + 179 + 212 + 253);
  });
});

describe("parseTable edge cases", () => {
  it("strips a UTF-8 BOM from the first header", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc("Name,Value\nalpha,1\n")]);
    const t = await parseTable(bytes, "bom.csv");
    expect(t.columns).toEqual(["Name", "Value"]);
    expect(t.rows).toEqual([{ Name: "alpha", Value: 1 }]);
  });

  it("decodes UTF-16LE with a BOM and falls back to Windows-1252 for invalid UTF-8", async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from("Stadt\tEinwohner\nMünchen\t1488202\n", "utf16le"),
    ]);
    expect((await parseTable(utf16, "cities.tsv")).rows).toEqual([{ Stadt: "München", Einwohner: 1488202 }]);
    const latin1 = Buffer.from("Stadt,Einwohner\nK\xf6ln,1084831\n", "latin1");
    expect((await parseTable(latin1, "cities.csv")).rows).toEqual([{ Stadt: "Köln", Einwohner: 1084831 }]);
  });

  it("makes duplicate and empty headers unique and trims them", async () => {
    const t = await parseTable(enc(" Name ,Name,,Value,Name_2\nA,B,C,1,D\n"), "dups.csv");
    expect(t.columns).toEqual(["Name", "Name_2", "column_3", "Value", "Name_2_2"]);
    expect(t.rows[0]).toEqual({ Name: "A", Name_2: "B", column_3: "C", Value: 1, Name_2_2: "D" });
  });

  it("renames __proto__ and constructor headers so rows stay plain objects", async () => {
    const t = await parseTable(enc("__proto__,constructor,x\n1,2,3\n"), "evil.csv");
    expect(t.columns).toEqual(["__proto___", "constructor_", "x"]);
    const row = t.rows[0]!;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toEqual({ __proto___: 1, constructor_: 2, x: 3 });
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    const j = await parseTable(enc('[{"__proto__": {"polluted": true}, "a": 1}]'), "evil.json");
    expect(j.columns).toEqual(["__proto___", "a"]);
    expect(j.rows[0]).toEqual({ __proto___: '{"polluted":true}', a: 1 });
    expect(Object.getPrototypeOf(j.rows[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectPlainRows(j);
  });

  it("types CSV cells: numbers, booleans, nulls; IDs with leading zeros stay strings", async () => {
    const t = await parseTable(
      enc("id,n,f,b,s,e,big\n007,-12,3.5e2,TRUE,hello,,12345678901234567890\n0,+4,.5,false, padded ,  ,1\n"),
      "types.csv",
    );
    expect(t.rows).toEqual([
      { id: "007", n: -12, f: 350, b: true, s: "hello", e: null, big: "12345678901234567890" },
      { id: 0, n: 4, f: 0.5, b: false, s: " padded ", e: null, big: 1 },
    ]);
  });

  it("detects a semicolon delimiter and pads short / names extra cells", async () => {
    const t = await parseTable(enc("a;b\n1;2\n3\n4;5;6\n"), "semi.csv");
    expect(t.columns).toEqual(["a", "b", "column_3"]);
    expect(t.rows).toEqual([
      { a: 1, b: 2, column_3: null },
      { a: 3, b: null, column_3: null },
      { a: 4, b: 5, column_3: 6 },
    ]);
  });

  it("reads an empty CSV as an empty table", async () => {
    expect(await parseTable(enc(""), "empty.csv")).toEqual({ columns: [], rows: [] });
    expect(await parseTable(enc("a,b\n"), "header-only.csv")).toEqual({ columns: ["a", "b"], rows: [] });
  });

  it("reads JSON wrapped in an object with one array, filling missing keys with null", async () => {
    const t = await parseTable(
      enc('{"count": 2, "moons": [{"name": "Io", "d": 3643.2}, {"name": "Europa", "tags": ["icy"]}]}'),
      "m.json",
    );
    expect(t.columns).toEqual(["name", "d", "tags"]);
    expect(t.rows).toEqual([
      { name: "Io", d: 3643.2, tags: null },
      { name: "Europa", d: null, tags: '["icy"]' },
    ]);
  });

  it("explains the expected JSON shape", async () => {
    const scalar = await failure(parseTable(enc("42"), "n.json"));
    expect(scalar.kind).toBe("runtime");
    expect(scalar.message).toContain("array of row objects");
    expect(scalar.message).toContain("n.json is a number");
    const two = await failure(parseTable(enc('{"a": [{"x": 1}], "b": [{"y": 2}]}'), "two.json"));
    expect(two.message).toContain("2 arrays of objects (a, b)");
    const arrays = await failure(parseTable(enc("[[1, 2], [3, 4]]"), "aa.json"));
    expect(arrays.message).toContain("items are not all objects");
    const broken = await failure(parseTable(enc("[{"), "broken.json"));
    expect(broken.message).toMatch(/^broken\.json is not valid JSON/);
  });

  it("reads JSON lines", async () => {
    const t = await parseTable(enc('{"a": 1}\n\n{"a": 2, "b": "x"}\n'), "rows.jsonl");
    expect(t.rows).toEqual([
      { a: 1, b: null },
      { a: 2, b: "x" },
    ]);
    const e = await failure(parseTable(enc('{"a": 1}\n[1]\n'), "rows.ndjson"));
    expect(e.message).toContain("line 2");
  });

  it("refuses unknown extensions, pointing at readText", async () => {
    const e = await failure(parseTable(enc("hello"), "/some/dir/notes.md"));
    expect(e.kind).toBe("runtime");
    expect(e.message).toContain("readTable reads .csv, .tsv, .xlsx");
    expect(e.message).toContain("use readText");
    expect(e.message).toContain("notes.md");
    const xls = await failure(parseTable(enc("x"), "old.xls"));
    expect(xls.message).toContain("save it as .xlsx or .csv");
  });

  it("reads xlsx dates as ISO strings, booleans as booleans, and fixes xlsx headers", async () => {
    const bytes = workbook({
      Log: [
        [" When ", "Done", "Count", "Count", null, "__proto__"],
        ["d:45322", true, 3, 4, "x", "p"],
        ["dt:45322.5", false, 0.25, null, null, null],
        [null, null, null, null, null, null],
        ["d:45323", true, -1, 7, "y", "q"],
      ],
      Other: [["only"], [1]],
    });
    const t = await parseTable(bytes, "log.xlsx");
    expect(t.sheets).toEqual(["Log", "Other"]);
    expect(t.columns).toEqual(["When", "Done", "Count", "Count_2", "column_5", "__proto___"]);
    expect(t.rows).toEqual([
      { When: "2024-01-31", Done: true, Count: 3, Count_2: 4, column_5: "x", __proto___: "p" },
      { When: "2024-01-31T12:00:00.000Z", Done: false, Count: 0.25, Count_2: null, column_5: null, __proto___: null },
      { When: "2024-02-01", Done: true, Count: -1, Count_2: 7, column_5: "y", __proto___: "q" },
    ]);
    expectPlainRows(t);
    expect((await parseTable(bytes, "log.xlsx", { sheet: "Other" })).rows).toEqual([{ only: 1 }]);
  });

  it("reads numeric cells that hold no number (NaN, INF) as null and names them in one warning", async () => {
    const bytes = workbook({
      Data: [
        ["name", "mass", "radius"],
        ["Earth", 5.97, 6371],
        ["Venus", Number.NaN, 6052],
        ["Mars", 0.642, Number.POSITIVE_INFINITY],
      ],
      Clean: [["a"], [1]],
    });
    const t = await parseTable(bytes, "bad.xlsx");
    expect(t.rows).toEqual([
      { name: "Earth", mass: 5.97, radius: 6371 },
      { name: "Venus", mass: null, radius: 6052 },
      { name: "Mars", mass: 0.642, radius: null },
    ]);
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings![0]).toMatch(/^Sheet "Data": 2 numeric cells .*B3 \("NaN"\), C4 \("Infinity"\)\.$/);
    // Warnings are about the sheet that was read.
    expect((await parseTable(bytes, "bad.xlsx", { sheet: "Clean" })).warnings).toBeUndefined();
  });

  it("rejects a sheet option for non-workbooks and a broken workbook", async () => {
    const e = await failure(parseTable(enc("a\n1\n"), "a.csv", { sheet: "Sheet1" }));
    expect(e.message).toContain("only applies to .xlsx");
    const bad = await failure(parseTable(enc("a,b\n1,2\n"), "fake.xlsx"));
    expect(bad.kind).toBe("runtime");
    expect(bad.message).toContain("could not be read as an .xlsx workbook");
  });

  it("reports broken CSV quoting", async () => {
    const e = await failure(parseTable(enc('a,b\n"unterminated,2\n'), "q.csv"));
    expect(e.kind).toBe("runtime");
    expect(e.message).toContain("q.csv is not valid CSV");
  });

  it("columnNames handles non-string header cells", () => {
    expect(columnNames([2015, true, null, new Date(Date.UTC(2024, 0, 31))])).toEqual([
      "2015",
      "true",
      "column_3",
      "2024-01-31",
    ]);
  });
});
