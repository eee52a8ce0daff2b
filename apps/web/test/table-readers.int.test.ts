import { writeFile } from "node:fs/promises";
import path from "node:path";
import { runJsOutput, TOOL, type TableResponse } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";
import { makeXlsx } from "./xlsx-fixture.js";

/*
 * The IDE's table viewer (GET /api/table) and exec_run_js's readTable read workbooks and CSV/TSV files
 * through one reader each (@textide/shared/node `readXlsx`, `readDelimited`): the same bytes must give the same header, rows, sheet names and
 * warnings on both surfaces. The MCP side runs in-process through its own test helper; the web server
 * never imports apps/mcp-fs-server, so the helper is loaded by URL (a test-only dependency).
 */

interface McpSide {
  call(name: string, args: Record<string, unknown>): Promise<{ structuredContent?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}
type ConnectInMemory = (opts: { files: Record<string, Buffer>; copySample: boolean }) => Promise<McpSide>;

const CONNECT = new URL("../../mcp-fs-server/test/helpers/connect.ts", import.meta.url).href;

/** A numeric cell written as `<v>NaN</v>` (B3), as some exporters do. */
const NAN_BOOK = makeXlsx([
  {
    name: "Planets",
    rows: [
      ["name", "mass"],
      ["Earth", 5.97],
      ["Venus", Number.NaN],
      ["Mars", 0.642],
    ],
  },
]);

/** Leading and inner empty rows, a ragged header, duplicate and blank header cells, several sheets. */
const MESSY_BOOK = makeXlsx([
  { name: "Intro", rows: [["about"], ["three sheets"]] },
  {
    name: "Moons ",
    rows: [
      [],
      [],
      ["planet", "moon", "", "moon"],
      ["Earth", "Moon", 1, "x"],
      [],
      ["Mars", "Phobos", 2],
      ["Mars", "Deimos", 3, "", 9],
      [],
    ],
  },
  { name: "Empty", rows: [] },
]);

/** Delimited files with the cases readers disagree on: quoting, BOM, ragged rows, blank lines, `;`, CP1252. */
const DELIMITED: Record<string, Buffer> = {
  "data/quotes.csv": Buffer.from(
    '\uFEFFname,"note, with comma",size\r\n"Io","said ""hi""\r\ntwice",3643\r\n\r\nEuropa,5" wide,3122\r\n,,\r\nGanymede,,5268\r\n',
  ),
  "data/ragged.csv": Buffer.from("a,b\n\n1,2\n3\n4,5,6\n , \nlast\n"),
  "data/semicolons.csv": Buffer.from("land;hauptstadt;fläche\nÖsterreich;Wien;83879,5\nSchweiz;Bern;41285\n"),
  "data/windows.csv": Buffer.from([
    ...Buffer.from("city,note\r\nMalm"),
    0xf6,
    ...Buffer.from(",caf"),
    0xe9,
    0x0d,
    0x0a,
  ]),
  "data/moons.tsv": Buffer.from("moon\tplanet\tnote\nIo\tJupiter\tvolcanic; hot\nTitan\tSaturn\n"),
};

let ws: Workspace;
let web: Running;
let mcp: McpSide;

beforeAll(async () => {
  ws = await makeWorkspace();
  await writeFile(path.join(ws.project, "data", "nan.xlsx"), NAN_BOOK);
  await writeFile(path.join(ws.project, "data", "messy.xlsx"), MESSY_BOOK);
  for (const [file, bytes] of Object.entries(DELIMITED)) await writeFile(path.join(ws.project, file), bytes);
  web = await startServer(ws);
  const { connectInMemory } = (await import(CONNECT)) as { connectInMemory: ConnectInMemory };
  mcp = await connectInMemory({
    copySample: false,
    files: { "data/nan.xlsx": Buffer.from(NAN_BOOK), "data/messy.xlsx": Buffer.from(MESSY_BOOK), ...DELIMITED },
  });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await web?.close();
  await ws?.remove();
});

async function viewer(file: string, sheet?: string): Promise<TableResponse> {
  const q = `path=${encodeURIComponent(file)}${sheet === undefined ? "" : `&sheet=${encodeURIComponent(sheet)}`}`;
  const r = await request(web.port, "GET", `/api/table?${q}`);
  expect(r.status, JSON.stringify(r.json())).toBe(200);
  return r.json() as TableResponse;
}

interface AgentTable {
  columns: string[];
  rows: (string | number | boolean | null)[][];
  logs: string;
}

/** readTable inside exec_run_js; columns from the first row's keys (in insertion order). */
async function agent(file: string, sheet?: string): Promise<AgentTable> {
  const call =
    sheet === undefined
      ? `readTable(${JSON.stringify(file)})`
      : `readTable(${JSON.stringify(file)}, { sheet: ${JSON.stringify(sheet)} })`;
  const r = await mcp.call(TOOL.runJs, {
    code: `const rows = ${call}; return { columns: rows.length ? Object.keys(rows[0]) : [], rows: rows.map((r) => Object.values(r)) };`,
  });
  const out = runJsOutput.parse(r.structuredContent);
  expect(out.ok, JSON.stringify(out)).toBe(true);
  const result = out.result as { columns: string[]; rows: AgentTable["rows"] };
  return { ...result, logs: out.logs };
}

const asText = (rows: AgentTable["rows"]): string[][] => rows.map((r) => r.map((v) => (v === null ? "" : String(v))));

describe("one xlsx reader for the table viewer and exec_run_js", () => {
  it("reads a workbook with a NaN numeric cell on both surfaces: the cell empty, a warning naming it", async () => {
    const seen = await viewer("data/nan.xlsx");
    const read = await agent("data/nan.xlsx");

    expect(seen.columns).toEqual(["name", "mass"]);
    expect(seen.rows).toEqual([
      ["Earth", "5.97"],
      ["Venus", ""],
      ["Mars", "0.642"],
    ]);
    // The agent gets typed cells: numbers stay numbers, the bad one is null.
    expect(read.columns).toEqual(seen.columns);
    expect(read.rows).toEqual([
      ["Earth", 5.97],
      ["Venus", null],
      ["Mars", 0.642],
    ]);
    expect(asText(read.rows)).toEqual(seen.rows);

    expect(seen.warnings).toHaveLength(1);
    const warning = seen.warnings![0]!;
    expect(warning).toContain('Sheet "Planets"');
    expect(warning).toContain("B3");
    expect(warning).toContain('"NaN"');
    expect(read.logs).toContain(`[warn] readTable nan.xlsx: ${warning}`);
  });

  it("reads empty rows, the header row and several sheets identically", async () => {
    const first = await viewer("data/messy.xlsx");
    expect(first.sheets).toEqual(["Intro", "Moons ", "Empty"]);
    expect(first.sheet).toBe("Intro");
    expect(first.warnings).toBeUndefined();
    const firstRead = await agent("data/messy.xlsx");
    expect(firstRead.columns).toEqual(first.columns);
    expect(asText(firstRead.rows)).toEqual(first.rows);

    // The sheet is found by its exact name and, on both surfaces, by name ignoring case and spaces.
    for (const wanted of ["Moons ", "moons"]) {
      const seen = await viewer("data/messy.xlsx", wanted);
      const read = await agent("data/messy.xlsx", wanted);
      expect(seen.sheet).toBe("Moons ");
      // Empty rows are skipped wherever they are; the first non-empty row is the header.
      expect(seen.columns).toEqual(["planet", "moon", "column_3", "moon_2", "column_5"]);
      expect(seen.rows).toEqual([
        ["Earth", "Moon", "1", "x", ""],
        ["Mars", "Phobos", "2", "", ""],
        ["Mars", "Deimos", "3", "", "9"],
      ]);
      expect(seen.totalRows).toBe(3);
      expect(read.columns).toEqual(seen.columns);
      expect(asText(read.rows)).toEqual(seen.rows);
      expect(read.rows[0]![2]).toBe(1);
    }

    const empty = await viewer("data/messy.xlsx", "Empty");
    expect(empty).toMatchObject({ sheet: "Empty", columns: [], rows: [], totalRows: 0 });
    expect(await agent("data/messy.xlsx", "Empty")).toMatchObject({ columns: [], rows: [] });
  });
});

describe("one CSV/TSV reader for the table viewer and exec_run_js", () => {
  it("sees the same cells for quotes, a BOM, CRLF, blank rows and a quote inside unquoted text", async () => {
    const seen = await viewer("data/quotes.csv");
    expect(seen.columns).toEqual(["name", "note, with comma", "size"]);
    expect(seen.rows).toEqual([
      ["Io", 'said "hi"\r\ntwice', "3643"],
      ["Europa", '5" wide', "3122"],
      ["Ganymede", "", "5268"],
    ]);
    const read = await agent("data/quotes.csv");
    expect(read.columns).toEqual(seen.columns);
    expect(read.rows).toEqual([
      ["Io", 'said "hi"\r\ntwice', 3643],
      ["Europa", '5" wide', 3122],
      ["Ganymede", null, 5268],
    ]);
    expect(asText(read.rows)).toEqual(seen.rows);
  });

  it("pads ragged rows and names the extra column the same way", async () => {
    const seen = await viewer("data/ragged.csv");
    expect(seen.columns).toEqual(["a", "b", "column_3"]);
    expect(seen.rows).toEqual([
      ["1", "2", ""],
      ["3", "", ""],
      ["4", "5", "6"],
      ["last", "", ""],
    ]);
    const read = await agent("data/ragged.csv");
    expect(read.columns).toEqual(seen.columns);
    expect(asText(read.rows)).toEqual(seen.rows);
  });

  it("reads a semicolon CSV, Windows-1252 text and a TSV alike", async () => {
    const semi = await viewer("data/semicolons.csv");
    expect(semi.columns).toEqual(["land", "hauptstadt", "fläche"]);
    expect(semi.rows).toEqual([
      ["Österreich", "Wien", "83879,5"],
      ["Schweiz", "Bern", "41285"],
    ]);
    const win = await viewer("data/windows.csv");
    expect(win.rows).toEqual([["Malmö", "café"]]);
    const tsv = await viewer("data/moons.tsv");
    expect(tsv.rows).toEqual([
      ["Io", "Jupiter", "volcanic; hot"],
      ["Titan", "Saturn", ""],
    ]);
    for (const [file, table] of [
      ["data/semicolons.csv", semi],
      ["data/windows.csv", win],
      ["data/moons.tsv", tsv],
    ] as const) {
      const read = await agent(file);
      expect(read.columns, file).toEqual(table.columns);
      expect(asText(read.rows), file).toEqual(table.rows);
    }
  });
});
