import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { run, startEnv, type Env } from "./harness.js";

/*
 * A workspace with more tables than the planner inspects at once, where the right one has a
 * meaningless name: the planner finds it by a column word inside the files (a content search),
 * then inspects and charts it.
 */

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  const dir = path.join(env.ws.project, "exports");
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < 30; i++) {
    await writeFile(path.join(dir, `export_${1000 + i}.csv`), `id,label,score\n1,a,${i}\n2,b,${i + 1}\n`);
  }
  await writeFile(
    path.join(dir, "export_0423.csv"),
    ["employee_name,team,bonus_eur", "Ana,Blue,1200", "Bo,Blue,800", "Cy,Red,1500", "Di,Red,1700", "Ed,Green,400"].join(
      "\n",
    ),
  );
}, 30_000);
afterAll(async () => {
  await env?.close();
});

it("finds the table by its column words when names do not help: average bonus by team", async () => {
  const r = await run(env, "average bonus by team");
  expect(r.calls.map((c) => c.name)).toEqual(["fs_search_files", "fs_search_files", "exec_run_js", "exec_run_js"]);
  expect(r.calls[1]!.args).toMatchObject({ content: "bonus" });
  expect(r.codes[1]).toContain('readTable("exports/export_0423.csv")');
  expect(r.answer).toContain("Average bonus_eur: Red (1,600), Blue (1,000), Green (400)");
  expect(r.outputs).toEqual(["generated_assets/average-bonus-eur-by-team-bar.png"]);
});
