import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { readXlsx } from "@textide/shared/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fmt } from "../../src/planner/text.js";
import { run, startEnv, type Env, type RunResult } from "./harness.js";
import { cars, employees, grades, orders, transactions } from "./workspace.js";

/*
 * Transform requests end to end through the real MCP server's sql_query: filters by value and
 * comparison, aggregates with and without groups, sorts, distinct values, joins, conversions and
 * exports, charts of results, and the honesty rule. Every expected number is computed here in
 * TypeScript from the file itself (sample workspace copied to a temp dir, plus generated tables).
 */

let env: Env;
type Row = Record<string, unknown>;
const data: Record<string, Row[]> = {};

/** A small CSV/TSV reader for the expected values: quoted fields, numbers as numbers. */
function parseDelimited(text: string, sep: string): Row[] {
  const lines = text.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const split = (line: string) => {
    const out: string[] = [];
    let cur = "";
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (ch === sep && !quoted) {
        out.push(cur);
        cur = "";
      } else cur += ch;
    }
    out.push(cur);
    return out;
  };
  const header = split(lines[0]!);
  return lines.slice(1).map((l) => {
    const cells = split(l);
    return Object.fromEntries(
      header.map((h, i) => {
        const v = cells[i] ?? "";
        return [h, v === "" ? null : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v];
      }),
    );
  });
}

const STORES = Array.from({ length: 12 }, (_, i) => ({ store_id: i + 1, city: ["Lyon", "Porto", "Graz"][i % 3]! }));
const SALES = Array.from({ length: 60 }, (_, i) => ({
  sale: i + 1,
  store_id: (i * 7) % 14,
  amount: 10 + ((i * 37) % 90),
}));

beforeAll(async () => {
  env = await startEnv();
  const p = (rel: string) => path.join(env.ws.project, rel);
  await writeFile(p("sales/stores.csv"), ["store_id,city", ...STORES.map((s) => `${s.store_id},${s.city}`)].join("\n"));
  await writeFile(
    p("sales/store_sales.csv"),
    ["sale,store_id,amount", ...SALES.map((s) => `${s.sale},${s.store_id},${s.amount}`)].join("\n"),
  );
  data.missions = JSON.parse(await readFile(p("data/missions.json"), "utf8")) as Row[];
  data.observatories = parseDelimited(await readFile(p("data/observatories.csv"), "utf8"), ",");
  data.moons = parseDelimited(await readFile(p("data/moons/major-moons.tsv"), "utf8"), "\t");
  data.launches = parseDelimited(await readFile(p("data/launches-by-year.csv"), "utf8"), ",");
  const book = await readXlsx(await readFile(p("data/planets.xlsx")));
  data.planets = book.rows.map((cells) => Object.fromEntries(book.columns.map((c, i) => [c, cells[i] as unknown])));
}, 60_000);
afterAll(async () => {
  await env?.close();
});

// ---- expected values, computed from the rows

const n = (v: unknown) => (typeof v === "number" ? v : Number(v));
const nums = (rows: Row[], col: string) =>
  rows
    .map((r) => r[col])
    .filter((v) => v !== null && v !== undefined)
    .map(n);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mentions = (v: unknown, word: string) => typeof v === "string" && new RegExp(`\\b${word}\\b`, "i").test(v);
const sqlCalls = (r: RunResult) => r.calls.filter((c) => c.name === "sql_query").map((c) => String(c.args.sql));

/** The answer states this number in bold, and the SQL that computed it ran through sql_query. */
function expectBold(r: RunResult, value: number) {
  expect(r.answer, r.answer).toContain(`**${fmt(value)}**`);
  expect(sqlCalls(r).length).toBeGreaterThan(0);
  expect(r.answer).toContain(sqlCalls(r).at(-1)!);
}

/** The honesty rule: no number presented, the unmapped words named, no query computed. */
function expectHonest(r: RunResult, word: string) {
  expect(r.answer, r.answer).toContain("Could not map");
  expect(r.answer).toContain(word);
  expect(r.answer).not.toMatch(/\*\*\d/);
  expect(sqlCalls(r).every((s) => /^DESCRIBE|SELECT DISTINCT/.test(s))).toBe(true);
}

interface Case {
  request: string;
  check: (r: RunResult) => void | Promise<void>;
}

const planets = () => data.planets!;
const missions = () => data.missions!;
const observatories = () => data.observatories!;
const moons = () => data.moons!;

const COUNTS: Case[] = [
  {
    request: "how many missions went to Mars?",
    check: (r) => expectBold(r, missions().filter((m) => mentions(m.target, "mars")).length),
  },
  {
    request: "how many missions went to Jupiter?",
    check: (r) => expectBold(r, missions().filter((m) => mentions(m.target, "jupiter")).length),
  },
  {
    request: "how many NASA missions are there?",
    // Joint missions ("NASA / ESA / ASI") are NASA missions too: the word, not the whole cell.
    check: (r) => expectBold(r, missions().filter((m) => mentions(m.agency, "nasa")).length),
  },
  {
    request: "how many observatories are in Chile?",
    check: (r) => expectBold(r, observatories().filter((o) => o.Country === "Chile").length),
  },
  {
    request: "how many moons of Saturn are in major-moons.tsv?",
    check: (r) => expectBold(r, moons().filter((m) => m.Planet === "Saturn").length),
  },
  {
    request: "how many missions launched before 2000?",
    check: (r) => expectBold(r, missions().filter((m) => n(m.launch_year) < 2000).length),
  },
  {
    request: "how many employees are in Engineering?",
    check: (r) => expectBold(r, employees().filter((e) => e.department === "Engineering").length),
  },
  {
    request: "how many orders in the Toys category?",
    check: (r) => expectBold(r, orders().filter((o) => o.product_category === "Toys").length),
  },
  {
    request: "how many students have a score below 50?",
    check: (r) => expectBold(r, grades().filter((g) => g.score < 50).length),
  },
  {
    request: "how many transactions have an amount over 100?",
    check: (r) => expectBold(r, transactions().filter((t) => t.amount > 100).length),
  },
];

const AGGREGATES: Case[] = [
  {
    request: "average diameter of the planets",
    check: (r) => expectBold(r, mean(nums(planets(), "Diameter (km)"))),
  },
  {
    request: "what's the median diameter of the planets?",
    check: (r) => expectBold(r, median(nums(planets(), "Diameter (km)"))),
  },
  {
    request: "total moons of the planets",
    check: (r) => expectBold(r, sum(nums(planets(), "Moons"))),
  },
  {
    request: "maximum elevation of the observatories",
    check: (r) => expectBold(r, Math.max(...nums(observatories(), "Elevation (m)"))),
  },
  {
    request: "minimum latitude of the observatories",
    check: (r) => expectBold(r, Math.min(...nums(observatories(), "Latitude"))),
  },
  {
    request: "median elevation of observatories in Spain",
    check: (r) =>
      expectBold(
        r,
        median(
          nums(
            observatories().filter((o) => o.Country === "Spain"),
            "Elevation (m)",
          ),
        ),
      ),
  },
  {
    request: "average salary of employees in Sales",
    check: (r) =>
      expectBold(
        r,
        mean(
          employees()
            .filter((e) => e.department === "Sales")
            .map((e) => e.salary),
        ),
      ),
  },
  {
    request: "total units of orders in the North region",
    check: (r) =>
      expectBold(
        r,
        sum(
          orders()
            .filter((o) => o.region === "North")
            .map((o) => o.units),
        ),
      ),
  },
  {
    request: "minimum mpg of cars from USA",
    check: (r) =>
      expectBold(
        r,
        Math.min(
          ...cars()
            .filter((c) => c.Origin === "USA")
            .map((c) => c.MPG),
        ),
      ),
  },
  {
    request: "maximum cost of NASA missions",
    check: (r) =>
      expectBold(
        r,
        Math.max(
          ...nums(
            missions().filter((m) => mentions(m.agency, "nasa")),
            "cost_usd_millions",
          ),
        ),
      ),
  },
  {
    request: "average diameter of moons discovered after 1900",
    check: (r) =>
      expectBold(
        r,
        mean(
          nums(
            moons().filter((m) => n(m["Discovered (year)"]) > 1900),
            "Diameter (km)",
          ),
        ),
      ),
  },
  {
    request: "total amount of transactions.jsonl",
    check: (r) => expectBold(r, sum(transactions().map((t) => t.amount))),
  },
];

describe("counts", () => {
  for (const c of COUNTS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("aggregates", () => {
  for (const c of AGGREGATES) it(c.request, async () => c.check(await run(env, c.request)));
});

/** The answer lists exactly these rows: their count in bold and each name. */
function expectRows(r: RunResult, rows: Row[], label: string) {
  expectBold(r, rows.length);
  for (const row of rows.slice(0, 20)) expect(r.answer).toContain(String(row[label]));
}

const FILTERS: Case[] = [
  {
    request: "which planets have more than 10 moons?",
    check: (r) =>
      expectRows(
        r,
        planets().filter((p) => n(p.Moons) > 10),
        "Planet",
      ),
  },
  {
    request: "planets with a diameter over 50000",
    check: (r) =>
      expectRows(
        r,
        planets().filter((p) => n(p["Diameter (km)"]) > 50000),
        "Planet",
      ),
  },
  {
    request: "which moons have a diameter over 3000?",
    check: (r) =>
      expectRows(
        r,
        moons().filter((m) => n(m["Diameter (km)"]) > 3000),
        "Moon",
      ),
  },
  {
    request: "moons discovered before 1700",
    check: (r) =>
      expectRows(
        r,
        moons().filter((m) => m["Discovered (year)"] !== null && n(m["Discovered (year)"]) < 1700),
        "Moon",
      ),
  },
  {
    request: "missions launched after 2010",
    check: (r) =>
      expectRows(
        r,
        missions().filter((m) => n(m.launch_year) > 2010),
        "name",
      ),
  },
  {
    request: "observatories with an elevation above 4000",
    check: (r) =>
      expectRows(
        r,
        observatories().filter((o) => n(o["Elevation (m)"]) > 4000),
        "Observatory",
      ),
  },
  {
    request: "years with more than 200 successes",
    check: (r) =>
      expectRows(
        r,
        data.launches!.filter((l) => n(l.Successes) > 200),
        "Year",
      ),
  },
  {
    request: "cars from Japan with mpg over 30",
    check: (r) => {
      const rows = cars().filter((c) => c.Origin === "Japan" && c.MPG > 30);
      expectBold(r, rows.length);
      for (const c of rows) expect(r.answer).toContain(c.Model);
    },
  },
  {
    request: "cars with horsepower at least 300",
    check: (r) => {
      const rows = cars().filter((c) => c.Horsepower >= 300);
      expectBold(r, rows.length);
      for (const c of rows.slice(0, 10)) expect(r.answer).toContain(c.Model);
    },
  },
  {
    request: "employees with a salary over 100000",
    check: (r) => expectRows(r, employees().filter((e) => e.salary > 100000) as unknown as Row[], "name"),
  },
  {
    request: "which missions went to Mars?",
    check: (r) =>
      expectRows(
        r,
        missions().filter((m) => mentions(m.target, "mars")),
        "name",
      ),
  },
  {
    request: "missions to Mars",
    check: (r) =>
      expectRows(
        r,
        missions().filter((m) => mentions(m.target, "mars")),
        "name",
      ),
  },
  {
    request: "cars from Japan",
    check: (r) => {
      const rows = cars().filter((c) => c.Origin === "Japan");
      expectBold(r, rows.length);
      for (const c of rows.slice(0, 10)) expect(r.answer).toContain(c.Model);
    },
  },
  {
    request: "observatories in Chile",
    check: (r) =>
      expectRows(
        r,
        observatories().filter((o) => o.Country === "Chile"),
        "Observatory",
      ),
  },
  {
    request: "orders with more than 40 units in the West region",
    check: (r) => expectBold(r, orders().filter((o) => o.units > 40 && o.region === "West").length),
  },
];

const SORTS: Case[] = [
  {
    request: "planets sorted by diameter descending",
    check: (r) => {
      const order = [...planets()]
        .sort((a, b) => n(b["Diameter (km)"]) - n(a["Diameter (km)"]))
        .map((p) => String(p.Planet));
      expect(r.answer.indexOf(order[0]!)).toBeLessThan(r.answer.indexOf(order[order.length - 1]!));
      expectBold(r, planets().length);
    },
  },
  {
    request: "observatories in Chile sorted by elevation",
    check: (r) => {
      const rows = observatories()
        .filter((o) => o.Country === "Chile")
        .sort((a, b) => n(a["Elevation (m)"]) - n(b["Elevation (m)"]));
      expectBold(r, rows.length);
      const at = rows.map((o) => r.answer.indexOf(String(o.Observatory)));
      expect(at.every((v, i) => v >= 0 && (i === 0 || v > at[i - 1]!))).toBe(true);
    },
  },
  {
    request: "top 3 cars from Germany sorted by mpg descending",
    check: (r) => {
      const rows = cars()
        .filter((c) => c.Origin === "Germany")
        .sort((a, b) => b.MPG - a.MPG)
        .slice(0, 3);
      expectBold(r, rows.length);
      expect(r.answer).toContain(rows[0]!.Model);
      expect(sqlCalls(r).at(-1)).toMatch(/ORDER BY "MPG" DESC NULLS LAST LIMIT 3/);
    },
  },
  {
    request: "the 2 moons with the largest diameter sorted by diameter descending",
    check: (r) => {
      const rows = [...moons()].sort((a, b) => n(b["Diameter (km)"]) - n(a["Diameter (km)"])).slice(0, 2);
      expectRows(r, rows, "Moon");
    },
  },
];

const GROUPS: Case[] = [
  {
    request: "median salary per department",
    check: (r) => {
      for (const d of new Set(employees().map((e) => e.department))) {
        const m = median(
          employees()
            .filter((e) => e.department === d)
            .map((e) => e.salary),
        );
        expect(r.answer).toContain(`${d} (${fmt(m)})`);
      }
    },
  },
  {
    request: "median elevation of observatories per country",
    check: (r) => {
      for (const c of new Set(observatories().map((o) => String(o.Country)))) {
        const m = median(
          nums(
            observatories().filter((o) => o.Country === c),
            "Elevation (m)",
          ),
        );
        expect(r.answer).toContain(`${c} (${fmt(m)})`);
      }
    },
  },
  {
    request: "number of cars per origin sorted by origin",
    check: (r) => {
      for (const o of new Set(cars().map((c) => c.Origin))) {
        expect(r.answer).toContain(`${o} (${cars().filter((c) => c.Origin === o).length})`);
      }
    },
  },
  {
    request: "median score per subject",
    check: (r) => {
      for (const s of new Set(grades().map((g) => g.subject))) {
        expect(r.answer).toContain(
          `${s} (${fmt(
            median(
              grades()
                .filter((g) => g.subject === s)
                .map((g) => g.score),
            ),
          )})`,
        );
      }
    },
  },
];

const DISTINCT: Case[] = [
  {
    request: "distinct agencies in missions.json",
    check: (r) => {
      const values = new Set(missions().map((m) => String(m.agency)));
      expectBold(r, values.size);
      for (const v of values) expect(r.answer).toContain(v);
    },
  },
  {
    request: "unique countries of the observatories",
    check: (r) => {
      const values = new Set(observatories().map((o) => String(o.Country)));
      expectBold(r, values.size);
      for (const v of values) expect(r.answer).toContain(v);
    },
  },
  {
    request: "distinct types of planets",
    check: (r) => expectBold(r, new Set(planets().map((p) => p.Type)).size),
  },
  {
    request: "distinct planets in major-moons.tsv",
    check: (r) => {
      const values = new Set(moons().map((m) => String(m.Planet)));
      expectBold(r, values.size);
      for (const v of values) expect(r.answer).toContain(v);
    },
  },
  {
    request: "unique subjects in grades-2024.csv",
    check: (r) => expectBold(r, new Set(grades().map((g) => g.subject)).size),
  },
];

describe("filters", () => {
  for (const c of FILTERS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("sorting and top N", () => {
  for (const c of SORTS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("groups", () => {
  for (const c of GROUPS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("distinct values", () => {
  for (const c of DISTINCT) it(c.request, async () => c.check(await run(env, c.request)));
});

const JOINS: Case[] = [
  {
    request: "join major-moons.tsv with planets.xlsx on planet",
    check: (r) => {
      const names = new Set(planets().map((p) => p.Planet));
      expectBold(r, moons().filter((m) => names.has(m.Planet)).length);
      expect(sqlCalls(r).at(-1)).toMatch(/JOIN 'data\/planets\.xlsx' AS r ON l\."Planet" = r\."Planet"/);
    },
  },
  {
    // The help text's wording: files named by their workspace paths.
    request: "join data/moons/major-moons.tsv with data/planets.xlsx on planet",
    check: (r) => {
      const names = new Set(planets().map((p) => p.Planet));
      expectBold(r, moons().filter((m) => names.has(m.Planet)).length);
    },
  },
  {
    request: "join store_sales.csv with stores.csv on store_id",
    check: (r) => {
      const ids = new Set(STORES.map((s) => s.store_id));
      expectBold(r, SALES.filter((s) => ids.has(s.store_id)).length);
    },
  },
  {
    request: "join stores.csv with store_sales.csv",
    check: (r) => {
      // No column named: the one both files share (store_id).
      const ids = new Set(STORES.map((s) => s.store_id));
      expectBold(r, SALES.filter((s) => ids.has(s.store_id)).length);
      expect(sqlCalls(r).at(-1)).toContain('ON l."store_id" = r."store_id"');
    },
  },
  {
    request: "join missions.json with planets.xlsx on planet",
    // missions.json has no planet column: say so, join nothing.
    check: (r) => expectHonest(r, "planet"),
  },
];

async function readOutput(r: RunResult, name: string): Promise<string> {
  const out = r.calls.flatMap((c) =>
    Array.isArray(c.structured?.outputs) ? (c.structured.outputs as { path: string }[]) : [],
  );
  const file = out.find((o) => o.path.endsWith(name));
  expect(file, JSON.stringify(out)).toBeDefined();
  expect(r.answer).toContain(file!.path);
  return readFile(path.join(env.ws.base, file!.path), "utf8");
}

const EXPORTS: Case[] = [
  {
    request: "convert observatories.csv to json",
    check: async (r) => {
      const rows = JSON.parse(await readOutput(r, "observatories.json")) as Row[];
      expect(rows).toHaveLength(observatories().length);
      expect(rows.map((o) => o.Observatory)).toEqual(observatories().map((o) => o.Observatory));
      expectBold(r, observatories().length);
    },
  },
  {
    request: "convert data/observatories.csv to json",
    check: async (r) => {
      const rows = JSON.parse(await readOutput(r, "observatories.json")) as Row[];
      expect(rows).toHaveLength(observatories().length);
    },
  },
  {
    request: "convert missions.json to csv",
    check: async (r) => {
      const rows = parseDelimited(await readOutput(r, "missions.csv"), ",");
      expect(rows.map((m) => m.name)).toEqual(missions().map((m) => m.name));
    },
  },
  {
    request: "save the cars from Japan as csv",
    check: async (r) => {
      const rows = parseDelimited(await readOutput(r, ".csv"), ",");
      const expected = cars().filter((c) => c.Origin === "Japan");
      expect(rows.map((c) => c.Model)).toEqual(expected.map((c) => c.Model));
      expectBold(r, expected.length);
    },
  },
  {
    request: "export the planets with more than 10 moons as json",
    check: async (r) => {
      const rows = JSON.parse(await readOutput(r, ".json")) as Row[];
      expect(rows.map((p) => p.Planet)).toEqual(
        planets()
          .filter((p) => n(p.Moons) > 10)
          .map((p) => p.Planet),
      );
    },
  },
  {
    request: "save the rows where salary is over 90000 from employees.json as csv",
    check: async (r) => {
      const rows = parseDelimited(await readOutput(r, ".csv"), ",");
      expect(rows.map((e) => e.name)).toEqual(
        employees()
          .filter((e) => e.salary > 90000)
          .map((e) => e.name),
      );
    },
  },
];

const CHARTS: Case[] = [
  {
    request: "bar chart of planets with more than 10 moons",
    check: (r) => {
      const rows = planets().filter((p) => n(p.Moons) > 10);
      expectRows(r, rows, "Planet");
      expect(r.outputs.some((o) => o.endsWith(".png"))).toBe(true);
      expect(r.calls.map((c) => c.name)).toContain("exec_run_js");
    },
  },
  {
    request: "bar chart of median salary per department",
    check: (r) => {
      expect(r.outputs.some((o) => o.endsWith(".png"))).toBe(true);
      for (const d of new Set(employees().map((e) => e.department))) {
        expect(r.answer).toContain(
          `${d} (${fmt(
            median(
              employees()
                .filter((e) => e.department === d)
                .map((e) => e.salary),
            ),
          )})`,
        );
      }
    },
  },
  {
    request: "pie chart of median mpg per origin",
    check: (r) => {
      expect(r.outputs.some((o) => o.endsWith(".png"))).toBe(true);
      for (const o of new Set(cars().map((c) => c.Origin))) {
        expect(r.answer).toContain(
          `${o} (${fmt(
            median(
              cars()
                .filter((c) => c.Origin === o)
                .map((c) => c.MPG),
            ),
          )})`,
        );
      }
    },
  },
];

const HONEST: Case[] = [
  { request: "how many observatories are in the southern hemisphere?", check: (r) => expectHonest(r, "southern") },
  { request: "how many missions went to Venus?", check: (r) => expectHonest(r, "venus") },
  { request: "average price of cars", check: (r) => expectHonest(r, "price") },
  { request: "how many planets have rings?", check: (r) => expectHonest(r, "rings") },
  { request: "planets with more than 3 volcanoes", check: (r) => expectHonest(r, "volcanoes") },
  { request: "median salary per office", check: (r) => expectHonest(r, "office") },
];

describe("joins", () => {
  for (const c of JOINS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("conversions and exports", () => {
  for (const c of EXPORTS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("charts of results", () => {
  for (const c of CHARTS) it(c.request, async () => c.check(await run(env, c.request)));
});

describe("honesty: a word that names nothing gets no number", () => {
  for (const c of HONEST) it(c.request, async () => c.check(await run(env, c.request)));
});
