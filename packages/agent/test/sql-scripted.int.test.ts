import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@textide/shared";
import { readXlsx } from "@textide/shared/node";
import { createAgent } from "../src/agent.js";
import { ScriptedChatModel } from "./fake-model.js";
import { SCRIPTED_MODEL as MODEL, useBundledServer } from "./helpers/scripted-server.js";

/*
 * The LLM path for transforms: a scripted model (the only fake) joins two workspace files with
 * sql_query, writes the joined result with COPY, and charts it with exec_run_js, through the real
 * bundled server over stdio. The numbers the SQL returns are checked against the files themselves.
 */

const server = useBundledServer();

const JOIN = `SELECT p."Planet", count(*) AS moons, round(avg(m."Diameter (km)"), 1) AS avg_moon_diameter
FROM 'data/moons/major-moons.tsv' AS m JOIN 'data/planets.xlsx' AS p ON m."Planet" = p."Planet"
GROUP BY p."Planet" ORDER BY moons DESC, p."Planet"`;

const CHART = `const rows = await readTable("generated_assets/moons-per-planet.json");
return await chart({ title: "Major moons per planet", data: { values: rows }, mark: "bar",
  encoding: { x: { field: "Planet", type: "nominal", sort: "-y" }, y: { field: "moons", type: "quantitative" } } },
  "moons-per-planet", { format: "png" });`;

describe("a scripted model joins and charts through sql_query", () => {
  it("join → COPY → chart, with the joined counts equal to the files' own", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "sql_query", args: { sql: "DESCRIBE SELECT * FROM 'data/moons/major-moons.tsv'" } }] },
      { toolCalls: [{ name: "sql_query", args: { sql: JOIN } }] },
      {
        toolCalls: [
          {
            name: "sql_query",
            args: { sql: `COPY (${JOIN}) TO 'generated_assets/moons-per-planet.json' (FORMAT json, ARRAY true)` },
          },
        ],
      },
      { toolCalls: [{ name: "exec_run_js", args: { code: CHART } }] },
      "Created generated_assets/moons-per-planet.png from the join of major-moons.tsv and planets.xlsx.",
    ]);
    const agent = createAgent({ model, modelInfo: MODEL, tools: await server.toolSet.tools() });
    const events: AgentEvent[] = [];
    const result = await agent.run({
      threadId: "t-sql-join",
      text: "join major-moons.tsv with planets.xlsx on planet and chart the moons per planet",
      onEvent: (e) => events.push(e),
    });

    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.name, e.isError])).toEqual([
      ["sql_query", false],
      ["sql_query", false],
      ["sql_query", false],
      ["exec_run_js", false],
    ]);
    // The system prompt tells a model when to use sql_query.
    const system = model.calls[0]!.find((m) => m instanceof SystemMessage);
    expect(JSON.stringify(system?.content)).toMatch(/sql_query/);

    // Independent count: moons per planet straight from the TSV, for the planets of the workbook's
    // first sheet (an inner join drops Pluto's Charon: Pluto is on the dwarf planets sheet).
    const book = await readXlsx(await readFile(path.join(server.ws.project, "data/planets.xlsx")));
    const planets = new Set(book.rows.map((r) => r[book.columns.indexOf("Planet")]));
    const tsv = (await readFile(path.join(server.ws.project, "data/moons/major-moons.tsv"), "utf8")).trim().split("\n");
    const planetAt = tsv[0]!.split("\t").indexOf("Planet");
    const expected = new Map<string, number>();
    for (const line of tsv.slice(1)) {
      const planet = line.split("\t")[planetAt]!;
      if (planets.has(planet)) expected.set(planet, (expected.get(planet) ?? 0) + 1);
    }
    expect(expected.size).toBeGreaterThan(3);
    const written = JSON.parse(await readFile(path.join(server.ws.assets, "moons-per-planet.json"), "utf8")) as {
      Planet: string;
      moons: number;
    }[];
    expect(new Map(written.map((r) => [r.Planet, r.moons]))).toEqual(expected);
    // The model read the join's rows in the tool result before it wrote the file.
    const joinResult = JSON.stringify(model.calls[2]!.at(-1)!.content);
    for (const [planet, n] of expected) expect(joinResult).toMatch(new RegExp(`${planet}[^\\n]*\\b${n}\\b`));

    expect(result.outputs).toEqual(
      expect.arrayContaining(["generated_assets/moons-per-planet.json", "generated_assets/moons-per-planet.png"]),
    );
    expect((await stat(path.join(server.ws.assets, "moons-per-planet.png"))).size).toBeGreaterThan(5_000);
    expect(result.stopReason).toBe("done");
  }, 120_000);
});
