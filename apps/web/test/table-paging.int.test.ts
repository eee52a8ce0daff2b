import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TableResponse as Table } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";

/*
 * Issue 10, item 7: a CSV far over the editor's 5 MiB opens as a table of any size. The server streams the
 * file once (an exact row count and the offsets of every 64th row) and then answers pages by position,
 * sorted by a column when asked.
 */

const ROWS = 250_000;
/** Row i's cells as the file holds them (quoted, with a comma, a CRLF and doubled quotes inside). */
const value = (i: number) => (i * 7919) % 100_003;
const note = (i: number) => `said "hi" to ${i},\r\nthen "bye" ${"·".repeat(i % 40)}`;

let ws: Workspace;
let srv: Running;
const file = "data/huge.csv";

beforeAll(async () => {
  ws = await makeWorkspace();
  const lines = ["\uFEFFid,name,value,note"];
  for (let i = 0; i < ROWS; i++) {
    lines.push(`${i},Stern ${i} — Zoë,${value(i)},"${note(i).replaceAll('"', '""')}"`);
    if (i % 10_000 === 0) lines.push(""); // blank lines are skipped, not rows
  }
  await writeFile(path.join(ws.project, file), lines.join("\r\n") + "\r\n");
  srv = await startServer(ws);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

async function page(query: string): Promise<Table> {
  const r = await request(srv.port, "GET", `/api/table?path=${encodeURIComponent(file)}&${query}`);
  expect(r.status, JSON.stringify(r.json())).toBe(200);
  return r.json() as Table;
}

const row = (i: number) => [String(i), `Stern ${i} — Zoë`, String(value(i)), note(i)];

describe("GET /api/table pages a large CSV", () => {
  it("is given a file well over 20 MB", async () => {
    expect((await stat(path.join(ws.project, file))).size).toBeGreaterThan(20 * 1024 * 1024);
  });

  it("answers the first page with the exact row count", async () => {
    const t = await page("offset=0&limit=100");
    expect(t.columns).toEqual(["id", "name", "value", "note"]);
    expect(t.totalRows).toBe(ROWS);
    expect(t.rows).toHaveLength(100);
    expect(t.rows[0]).toEqual(row(0));
    expect(t.rowNumbers).toEqual(Array.from({ length: 100 }, (_, i) => i));
  }, 60_000);

  it("answers any page by position, the last one short", async () => {
    const mid = await page("offset=123457&limit=3");
    expect(mid.rows).toEqual([row(123_457), row(123_458), row(123_459)]);
    const last = await page(`offset=${ROWS - 5}&limit=200`);
    expect(last.rows).toEqual([0, 1, 2, 3, 4].map((k) => row(ROWS - 5 + k)));
    expect((await page(`offset=${ROWS + 10}`)).rows).toEqual([]);
    expect((await page("offset=0&limit=5000")).rows).toHaveLength(1000);
  }, 60_000);

  it("sorts by a column on the server: numbers numerically, rows keep their file positions", async () => {
    const desc = await page("offset=0&limit=4&sort=2&dir=desc");
    const byValue = Array.from({ length: ROWS }, (_, i) => i).sort((a, b) => value(b) - value(a) || a - b);
    expect(desc.rowNumbers).toEqual(byValue.slice(0, 4));
    expect(desc.rows).toEqual(byValue.slice(0, 4).map(row));
    const tail = await page(`offset=${ROWS - 2}&limit=10&sort=2&dir=desc`);
    expect(tail.rowNumbers).toEqual(byValue.slice(-2));
  }, 60_000);

  it("refuses bad paging parameters with a message", async () => {
    for (const q of ["offset=-1", "limit=ten", "sort=9", "sort=1&dir=up"]) {
      const r = await request(srv.port, "GET", `/api/table?path=${encodeURIComponent(file)}&${q}`);
      expect(r.status, q).toBe(400);
      expect((r.json() as { error: { message: string } }).error.message, q).toMatch(/offset|limit|sort|dir/);
    }
  });

  it("reads the file again when it changes", async () => {
    await writeFile(path.join(ws.project, file), "id,name\n1,only\n");
    const t = await page("offset=0");
    expect(t).toMatchObject({ totalRows: 1, columns: ["id", "name"], rows: [["1", "only"]] });
  });
});
