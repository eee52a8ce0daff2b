import { writeFile } from "node:fs/promises";
import path from "node:path";
import { runJsOutput, TOOL, type TableResponse } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";
import { makeXlsx } from "./xlsx-fixture.js";

/*
 * The IDE's table viewer (GET /api/table) and exec_run_js's readTable read workbooks through one reader
 * (@textide/shared/node `readXlsx`): the same bytes must give the same header, rows, sheet names and
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

let ws: Workspace;
let web: Running;
let mcp: McpSide;

beforeAll(async () => {
  ws = await makeWorkspace();
  await writeFile(path.join(ws.project, "data", "nan.xlsx"), NAN_BOOK);
  await writeFile(path.join(ws.project, "data", "messy.xlsx"), MESSY_BOOK);
  web = await startServer(ws);
  const { connectInMemory } = (await import(CONNECT)) as { connectInMemory: ConnectInMemory };
  mcp = await connectInMemory({
    copySample: false,
    files: { "data/nan.xlsx": Buffer.from(NAN_BOOK), "data/messy.xlsx": Buffer.from(MESSY_BOOK) },
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
