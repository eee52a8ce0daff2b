import { readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJsOutput, TOOL, type RunJsOutput } from "@textide/shared";
import { connectInMemory, type Connected } from "./helpers/connect.js";

/*
 * The runner keeps parsed tables and drawn charts by their content (exec/memo.ts). The same request
 * again must still read the file as it is now and write its chart again.
 */

let c: Connected;
beforeAll(async () => {
  c = await connectInMemory();
});
afterAll(() => c.close());

async function run(code: string): Promise<RunJsOutput> {
  const r = await c.call(TOOL.runJs, { code });
  const out = runJsOutput.parse(r.structuredContent);
  expect(out.ok, JSON.stringify(out.error)).toBe(true);
  return out;
}

const pieOf = (file: string) => `
  const rows = await readTable(${JSON.stringify(file)});
  const out = await chart({ data: { values: rows }, mark: "arc",
    encoding: { theta: { field: "n", type: "quantitative" }, color: { field: "k", type: "nominal" } } }, "repeat-pie", { format: "both" });
  return { rows, out };`;

describe("exec_run_js asked the same thing twice", () => {
  it("writes the chart again, with the same bytes, when the first one was deleted", async () => {
    const png = path.join(c.ws.assets, "repeat-pie.png");
    await writeFile(path.join(c.ws.project, "repeat.csv"), "k,n\nalpha,1\nbeta,2\n");
    const first = await run(pieOf("repeat.csv"));
    const bytes = await readFile(png);
    await rm(png);
    const second = await run(pieOf("repeat.csv"));
    expect(second.outputs.map((o) => o.path).sort()).toEqual([
      "generated_assets/repeat-pie.png",
      "generated_assets/repeat-pie.svg",
    ]);
    expect((await stat(png)).size).toBe(bytes.byteLength);
    expect(Buffer.compare(await readFile(png), bytes)).toBe(0);
    expect(second.outputs).toEqual(first.outputs);
  });

  it("reads a table and draws its chart anew after the file changed, even to the same size", async () => {
    const file = path.join(c.ws.project, "repeat.csv");
    await writeFile(file, "k,n\nalpha,1\nbeta,2\n");
    await run(pieOf("repeat.csv"));
    const png = path.join(c.ws.assets, "repeat-pie.png");
    const pngBefore = await readFile(png);
    await writeFile(file, "k,n\nalpha,1\ndelta,3\n");
    const after = await run(pieOf("repeat.csv"));
    expect((after.result as { rows: unknown }).rows).toEqual([
      { k: "alpha", n: 1 },
      { k: "delta", n: 3 },
    ]);
    const svg = await readFile(path.join(c.ws.assets, "repeat-pie.svg"), "utf8");
    expect(svg).toContain("delta");
    expect(svg).not.toContain("beta");
    expect(Buffer.compare(await readFile(png), pngBefore)).not.toBe(0);
  });

  it("reads each sheet of a workbook as it is, after reading its sheet names", async () => {
    const r = await run(`
      const names = await sheets("data/planets.xlsx");
      const tables = [];
      for (const sheet of names) tables.push({ sheet, rows: (await readTable("data/planets.xlsx", { sheet })).length });
      const again = await readTable("data/planets.xlsx", { sheet: names[1] });
      return { tables, again: Object.keys(again[0]) };`);
    const result = r.result as { tables: { sheet: string; rows: number }[]; again: string[] };
    expect(result.tables.length).toBeGreaterThan(1);
    expect(result.tables.map((t) => t.rows).every((n) => n > 0)).toBe(true);
    expect(result.again).toContain("Dwarf planet");
  });
});
