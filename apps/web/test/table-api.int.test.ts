import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { TableResponse as Table } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";
import { makeXlsx } from "./xlsx-fixture.js";

interface ErrorBody {
  error: { code: string; message: string; sheets?: string[] };
}

let ws: Workspace;
let srv: Running;

beforeAll(async () => {
  ws = await makeWorkspace();
  const big = [["n", "label"], ...Array.from({ length: 100_050 }, (_, i) => [i, `row ${i}`])];
  await writeFile(path.join(ws.assets, "big.xlsx"), makeXlsx([{ name: "Big", rows: big }]));
  await writeFile(
    path.join(ws.project, "data", "ragged.xlsx"),
    makeXlsx([{ name: "R", rows: [["a"], ["1", "2", "3"], []] }]),
  );
  await writeFile(path.join(ws.project, "data", "old.xls"), "not really a workbook");
  await writeFile(path.join(ws.project, "data", "broken.xlsx"), "PK\u0003\u0004 truncated");
  await writeFile(path.join(ws.outside, "secret.xlsx"), makeXlsx([{ name: "S", rows: [["x"]] }]));
  srv = await startServer(ws);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

const get = (p: string) => request(srv.port, "GET", p);
const table = (p: string, sheet?: string) =>
  get(`/api/table?path=${encodeURIComponent(p)}${sheet === undefined ? "" : `&sheet=${encodeURIComponent(sheet)}`}`);

describe("GET /api/table", () => {
  it("returns the first sheet of planets.xlsx with the sheet names", async () => {
    const r = await table("data/planets.xlsx");
    expect(r.status).toBe(200);
    const t = r.json() as Table;
    expect(t.sheets).toEqual(["Planets", "Dwarf planets"]);
    expect(t.sheet).toBe("Planets");
    expect(t.columns[0]).toBe("Planet");
    expect(t.columns).toContain("Diameter (km)");
    expect(t.rows).toHaveLength(8);
    expect(t.rows[0]!.slice(0, 3)).toEqual(["Mercury", "Terrestrial", "4879"]);
    expect(t).toMatchObject({ totalRows: 8, offset: 0 });
  });

  it("switches to a named sheet", async () => {
    const t = (await table("data/planets.xlsx", "Dwarf planets")).json() as Table;
    expect(t.sheet).toBe("Dwarf planets");
    expect(t.columns[0]).toBe("Dwarf planet");
    expect(t.rows.map((r) => r[0])).toContain("Pluto");
  });

  it("answers 404 with the sheet names for an unknown sheet", async () => {
    const r = await table("data/planets.xlsx", "Moons");
    expect(r.status).toBe(404);
    const body = r.json() as ErrorBody;
    expect(body.error.code).toBe("not_found:table");
    expect(body.error.message).toContain('"Dwarf planets"');
    expect(body.error.sheets).toEqual(["Planets", "Dwarf planets"]);
  });

  it("pages a sheet: any offset, the whole count, the last row", async () => {
    const first = (await table("generated_assets/big.xlsx")).json() as Table;
    expect(first).toMatchObject({ offset: 0, totalRows: 100_050 });
    expect(first.rows).toHaveLength(200);
    expect(first.rowNumbers.slice(0, 3)).toEqual([0, 1, 2]);
    const last = (await get("/api/table?path=generated_assets/big.xlsx&offset=100000&limit=1000")).json() as Table;
    expect(last.rows).toHaveLength(50);
    expect(last.rows[49]).toEqual(["100049", "row 100049"]);
  }, 30_000);

  it("names missing header cells and pads nothing it does not know", async () => {
    const t = (await table("data/ragged.xlsx")).json() as Table;
    // The same names exec_run_js's readTable gives (one reader in @textide/shared/node).
    expect(t.columns).toEqual(["a", "column_2", "column_3"]);
    expect(t.rows[0]).toEqual(["1", "2", "3"]);
  });

  it("refuses .xls with advice, and corrupt or non-workbook files", async () => {
    const xls = await table("data/old.xls");
    expect(xls.status).toBe(415);
    expect((xls.json() as ErrorBody).error.message).toContain("Re-save it as .xlsx");
    const broken = await table("data/broken.xlsx");
    expect(broken.status).toBe(415);
    expect((broken.json() as ErrorBody).error.message).toContain("could not be read");
    expect((await table("notes/ideas.md")).status).toBe(415);
  });

  it("reads a small TSV", async () => {
    const t = (await table("data/moons/major-moons.tsv")).json() as Table;
    expect(t.rows.length).toBe(t.totalRows);
    expect(t.columns.length).toBeGreaterThan(1);
  });

  it("goes through the path policy: missing, outside the roots, no path", async () => {
    expect((await table("data/nope.xlsx")).status).toBe(404);
    const out = await table("../outside/secret.xlsx");
    expect(out.status).toBe(403);
    expect((await get("/api/table")).status).toBe(400);
    expect((await table("data")).status).toBe(400);
  });
});
