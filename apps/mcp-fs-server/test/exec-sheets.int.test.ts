import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJsOutput, TOOL } from "@textide/shared";
import { connectInMemory, type Connected } from "./helpers/connect.js";

/* exec_run_js's sheets(path): a workbook's sheet names, through the same policy as readTable. */

let c: Connected;

beforeAll(async () => {
  c = await connectInMemory();
  await writeFile(path.join(c.ws.base, "outside.xlsx"), "not a workbook");
  await symlink(path.join(c.ws.base, "outside.xlsx"), path.join(c.ws.project, "leak.xlsx"));
});
afterAll(() => c.close());

async function run(code: string) {
  const r = await c.call(TOOL.runJs, { code });
  return runJsOutput.parse(r.structuredContent);
}

describe("sheets(path)", () => {
  it("names a workbook's sheets in order, and each one reads with readTable", async () => {
    const r = await run(`
      const names = await sheets("data/planets.xlsx");
      const counts = [];
      for (const sheet of names) counts.push((await readTable("data/planets.xlsx", { sheet })).length);
      return { names, counts };`);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const { names, counts } = r.result as { names: string[]; counts: number[] };
    expect(names[0]).toBe("Planets");
    expect(names).toContain("Dwarf planets");
    expect(counts.every((n) => n > 0)).toBe(true);
  });

  it("is empty for a table that is not a workbook", async () => {
    const r = await run(`return await sheets("data/observatories.csv");`);
    expect(r).toMatchObject({ ok: true, result: [] });
  });

  it("keeps to the roots: a symlink out and a missing file fail with the path policy's errors", async () => {
    const out = await run(`return await sheets("leak.xlsx");`);
    expect(out.ok).toBe(false);
    expect(out.error?.kind).toBe("policy");
    const missing = await run(`return await sheets("data/nope.xlsx");`);
    expect(missing.ok).toBe(false);
    expect(missing.error?.message).toMatch(/nope\.xlsx/);
    expect(await run("return 6 * 7")).toMatchObject({ ok: true, result: 42 });
  });
});
