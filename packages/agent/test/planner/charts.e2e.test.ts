import { stat } from "node:fs/promises";
import path from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, startEnv, type Env, type RunResult } from "./harness.js";
import {
  cars,
  employees,
  EXPENSES,
  grades,
  HEADCOUNT,
  orders,
  PRODUCTS,
  temps,
  traffic,
  transactions,
} from "./workspace.js";

/*
 * Chart requests end to end: the offline planner drives the real MCP server (search → inspect →
 * chart) on a temp workspace holding the sample files and generated ones it has never seen. Each
 * case checks the tool sequence, the PNG on disk, the answer, the column literals in the code and
 * the plotted values the chart call returned.
 */

let env: Env;
beforeAll(async () => {
  env = await startEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

type Point = { x: unknown; value: number; series?: unknown };

interface ChartCase {
  request: string;
  file: string;
  sheet?: string;
  /** Expected Vega-Lite mark / chart kind in the code's header comment. */
  kind: "bar chart" | "pie chart" | "line chart" | "scatter plot" | "histogram";
  /** Column names that must appear as string literals in the chart code. */
  columns: string[];
  /** Columns that must NOT be used. */
  notColumns?: string[];
  agg?: "sum" | "mean" | "count" | "none";
  output?: string;
  answer?: (string | RegExp)[];
  /** Checks on the plotted data returned by the chart call. */
  data?: (points: Point[], result: Record<string, unknown>) => void;
  /** Extra checks on the chart code. */
  code?: (code: string) => void;
  /** Sheet/file explicitly named: the search is by name, not the table glob. */
  searchQuery?: string;
}

function chartResult(res: RunResult): Record<string, unknown> {
  const last = [...res.calls].reverse().find((c) => c.name === "exec_run_js")!;
  return last.structured!.result as Record<string, unknown>;
}

async function expectChart(c: ChartCase): Promise<RunResult> {
  const res = await run(env, c.request);
  const names = res.calls.map((x) => x.name);
  // search → inspect → chart (one search; one inspect; one successful chart)
  expect(names).toEqual(["fs_search_files", "exec_run_js", "exec_run_js"]);
  expect(res.calls.every((x) => x.ok)).toBe(true);
  if (c.searchQuery) expect(res.calls[0]!.args.query).toBe(c.searchQuery);
  const inspect = res.codes[0]!;
  const code = res.codes[res.codes.length - 1]!;
  expect(inspect).toMatch(/^\/\/ Inspect/);
  expect(inspect).toContain(JSON.stringify(c.file));
  expect(code).toMatch(/^\/\/ Chart/);
  expect(code.split("\n")[0]).toContain(`${c.kind} from ${c.file}`);
  const read = c.sheet
    ? `readTable(${JSON.stringify(c.file)}, { sheet: ${JSON.stringify(c.sheet)} })`
    : `readTable(${JSON.stringify(c.file)})`;
  expect(code).toContain(read);
  for (const col of c.columns) expect(code).toContain(`r[${JSON.stringify(col)}]`);
  for (const col of c.notColumns ?? []) expect(code).not.toContain(JSON.stringify(col));
  if (c.agg === "none") expect(code).not.toContain("const groups");
  else if (c.agg) expect(code).toContain(`const ${c.agg} = `);

  // The PNG exists, is a real chart, and the answer names it.
  expect(res.outputs).toHaveLength(1);
  const png = res.outputs[0]!;
  expect(png).toMatch(/^generated_assets\/[a-z0-9-]+\.png$/);
  if (c.output) expect(png).toBe(`generated_assets/${c.output}.png`);
  const size = (await stat(path.join(env.ws.assets, path.basename(png)))).size;
  expect(size).toBeGreaterThan(5 * 1024);
  expect(res.answer).toContain(png);
  expect(res.answer).toContain(c.file);
  for (const a of c.answer ?? []) {
    if (typeof a === "string") expect(res.answer).toContain(a);
    else expect(res.answer).toMatch(a);
  }
  c.code?.(code);
  const result = chartResult(res);
  c.data?.((result.data as Point[]) ?? [], result);
  return res;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
function groupBy<T>(rows: T[], key: (r: T) => string, val: (r: T) => number) {
  const m = new Map<string, number[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), val(r)]);
  return m;
}
const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);

const CASES: ChartCase[] = [
  // ---- the sample workspace
  {
    request: "pie chart of the largest planets from planets.xlsx",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "pie chart",
    columns: ["Planet", "Diameter (km)"],
    agg: "none",
    output: "largest-planets-pie",
    searchQuery: "planets.xlsx",
    answer: ["Jupiter", "Saturn", "5 largest planets"],
    data: (d) => {
      expect(d.map((p) => p.x)).toEqual(["Jupiter", "Saturn", "Uranus", "Neptune", "Earth"]);
      expect(d[0]!.value).toBe(142984);
    },
  },
  {
    request: "bar chart of moons by planet",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "bar chart",
    columns: ["Planet", "Moons"],
    agg: "none",
    data: (d) => {
      expect(d[0]).toMatchObject({ x: "Saturn", value: 274 });
      expect(d).toHaveLength(8);
    },
  },
  {
    request: "show me a histogram of planet temperatures",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "histogram",
    columns: ["Mean temperature (C)"],
    data: (_d, r) => expect(r.data).toMatchObject({ count: 8, min: -200, max: 464 }),
  },
  {
    request: "line chart of exoplanet discoveries over year",
    file: "reports/2024/exoplanet-discoveries.csv",
    kind: "line chart",
    columns: ["Year"],
    answer: ["Transit", "Radial velocity", "Microlensing"],
    data: (d, r) => {
      expect(new Set(d.map((p) => p.series))).toEqual(
        new Set(["Transit", "Radial velocity", "Microlensing", "Imaging", "Other"]),
      );
      expect((r.range as { max: Point }).max).toMatchObject({ x: 2016, series: "Transit", value: 1428 });
    },
  },
  {
    request: "plot transit discoveries per year",
    file: "reports/2024/exoplanet-discoveries.csv",
    kind: "line chart",
    columns: ["Year", "Transit"],
    notColumns: ["Radial velocity"],
    data: (d) => expect(d[0]).toMatchObject({ x: 2010, value: 46 }),
  },
  {
    request: "scatter plot of diameter vs mass",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "scatter plot",
    columns: ["Mass (10^24 kg)", "Diameter (km)", "Planet"],
    output: "diameter-vs-mass-scatter",
    data: (d) => {
      const jupiter = (d as unknown as { x: number; y: number; label: string }[]).find((p) => p.label === "Jupiter");
      expect(jupiter).toMatchObject({ x: 1898, y: 142984 });
    },
  },
  {
    request: "top 3 smallest planets by diameter as a bar chart",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "bar chart",
    columns: ["Planet", "Diameter (km)"],
    answer: ["Mercury", "Mars", "Venus"],
    data: (d) => expect(d.map((p) => p.x)).toEqual(["Mercury", "Mars", "Venus"]),
  },
  {
    request: "bar chart of diameters from the Dwarf planets sheet",
    file: "data/planets.xlsx",
    sheet: "Dwarf planets",
    kind: "bar chart",
    columns: ["Dwarf planet", "Diameter (km)"],
    answer: ["Pluto"],
    data: (d) => expect(d[0]).toMatchObject({ x: "Pluto", value: 2376.6 }),
  },
  {
    request: "chart the successes over the years",
    file: "data/launches-by-year.csv",
    kind: "line chart",
    columns: ["Year", "Successes"],
    notColumns: ["Orbital launch attempts"],
    answer: ["2015", "2024"],
  },
  {
    request: "count of missions per agency",
    file: "data/missions.json",
    kind: "bar chart",
    columns: ["agency"],
    agg: "count",
    data: (d) => expect(d[0]).toMatchObject({ x: "NASA", value: 8 }),
  },
  {
    request: "bar chart of mission costs",
    file: "data/missions.json",
    kind: "bar chart",
    columns: ["name", "cost_usd_millions"],
    agg: "none",
    // Missions with no known cost (null) are left out.
    data: (d) => {
      expect(d[0]).toMatchObject({ x: "James Webb Space Telescope", value: 10000 });
      expect(d.every((p) => typeof p.value === "number")).toBe(true);
    },
  },
  {
    request: "which planets have the most moons? bar chart on a log scale",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "bar chart",
    columns: ["Planet", "Moons"],
    // Some planets have 0 moons, which a plain log axis cannot show.
    code: (code) => expect(code).toContain('"type": "symlog"'),
    data: (d) => expect(d[0]).toMatchObject({ x: "Saturn", value: 274 }),
  },
  // ---- generated files: JSON array, snake_case CSV, TSV with units, wrapped camelCase JSON, two-sheet xlsx
  {
    request: "average salary by department",
    file: "hr/employees.json",
    kind: "bar chart",
    columns: ["department", "salary"],
    agg: "mean",
    output: "average-salary-by-department-bar",
    data: (d) => {
      const expected = groupBy(
        employees(),
        (e) => e.department,
        (e) => e.salary,
      );
      for (const p of d)
        expect(p.value).toBeCloseTo(round2(sum(expected.get(String(p.x))!) / expected.get(String(p.x))!.length), 2);
      expect(d.map((p) => p.value)).toEqual([...d.map((p) => p.value)].sort((a, b) => b - a));
    },
  },
  {
    request: "how many employees work remotely per department",
    file: "hr/employees.json",
    kind: "bar chart",
    columns: ["department", "remote"],
    agg: "count",
    answer: ["remote only"],
    data: (d) => {
      const remote = groupBy(
        employees().filter((e) => e.remote),
        (e) => e.department,
        () => 1,
      );
      for (const p of d) expect(p.value).toBe(remote.get(String(p.x))!.length);
    },
  },
  {
    request: "total units by region from the q1 orders",
    file: "sales/2025/q1_orders.csv",
    kind: "bar chart",
    columns: ["region", "units"],
    agg: "sum",
    output: "total-units-by-region-bar",
    data: (d) => {
      const expected = groupBy(
        orders(),
        (o) => o.region,
        (o) => o.units,
      );
      expect(d).toHaveLength(expected.size);
      for (const p of d) expect(p.value).toBe(sum(expected.get(String(p.x))!));
    },
  },
  {
    request: "histogram of unit prices",
    file: "sales/2025/q1_orders.csv",
    kind: "histogram",
    columns: ["unit_price_usd"],
    notColumns: ["units"],
    data: (_d, r) => expect((r.data as { count: number }).count).toBe(90),
  },
  {
    request: "pie of product categories by units sold",
    file: "sales/2025/q1_orders.csv",
    kind: "pie chart",
    columns: ["product_category", "units"],
    agg: "sum",
    data: (d) => {
      const expected = groupBy(
        orders(),
        (o) => o.product_category,
        (o) => o.units,
      );
      expect(sum(d.map((p) => p.value))).toBe(sum([...expected.values()].flat()));
    },
  },
  {
    request: "line chart of units sold per month",
    file: "sales/2025/q1_orders.csv",
    kind: "line chart",
    columns: ["order_date", "units"],
    agg: "sum",
    data: (d) => {
      expect(d.map((p) => p.x)).toEqual(["2025-01", "2025-02", "2025-03"]);
      const jan = sum(
        orders()
          .filter((o) => o.order_date.startsWith("2025-01"))
          .map((o) => o.units),
      );
      expect(d[0]!.value).toBe(jan);
    },
  },
  {
    request: "line chart of Oslo temperatures over time",
    file: "weather/daily-temps.tsv",
    kind: "line chart",
    columns: ["Date", "Oslo (°C)"],
    notColumns: ["Madrid (°C)"],
    data: (d, r) => {
      expect(r.points).toBe(60);
      expect(d[0]).toMatchObject({ x: "2024-01-01", value: temps()[0]!.values[0] });
    },
  },
  {
    request: "compare Madrid and Cairo temperatures over time",
    file: "weather/daily-temps.tsv",
    kind: "line chart",
    columns: ["Date"],
    notColumns: ["Oslo (°C)", "Tokyo (°C)"],
    answer: ["Madrid (°C)", "Cairo (°C)"],
    data: (d) => expect(new Set(d.map((p) => p.series))).toEqual(new Set(["Madrid (°C)", "Cairo (°C)"])),
  },
  {
    request: "scatter of salary vs hire year",
    file: "hr/employees.json",
    kind: "scatter plot",
    columns: ["hire_year", "salary"],
    data: (_d, r) => expect(r.points).toBe(42),
  },
  {
    request: "top 5 products by rating as a bar chart",
    file: "shop/catalog.json",
    kind: "bar chart",
    columns: ["productName", "rating"],
    data: (d) => {
      const best = [...PRODUCTS].sort((a, b) => b.rating - a.rating).slice(0, 5);
      expect(d.map((p) => p.x)).toEqual(best.map((p) => p.productName));
    },
  },
  {
    request: "pie chart of products by category from catalog.json",
    file: "shop/catalog.json",
    kind: "pie chart",
    columns: ["category"],
    agg: "count",
    searchQuery: "catalog.json",
    answer: ["Number of products"],
    data: (d) => expect(sum(d.map((p) => p.value))).toBe(PRODUCTS.length),
  },
  {
    request: "bar chart of expenses by category from the budget workbook",
    file: "finance/Budget FY2025.xlsx",
    sheet: "Expenses",
    kind: "bar chart",
    columns: ["Category", "Amount (EUR)"],
    agg: "sum",
    data: (d) => {
      const rent = sum(EXPENSES.filter((e) => e[1] === "Rent").map((e) => e[2]));
      expect(d.find((p) => p.x === "Rent")!.value).toBe(rent);
    },
  },
  {
    request: "bar chart of headcount by team",
    file: "finance/Budget FY2025.xlsx",
    sheet: "Headcount",
    kind: "bar chart",
    columns: ["Team", "Headcount"],
    notColumns: ["Open roles"],
    data: (d) => expect(d.map((p) => p.x)).toEqual([...HEADCOUNT].sort((a, b) => b[1] - a[1]).map((h) => h[0])),
  },
  {
    request: "average horsepower by make",
    file: "inventory/Cars Dataset.csv",
    kind: "bar chart",
    columns: ["Make", "Horsepower"],
    agg: "mean",
    data: (d) => {
      const hp = groupBy(
        cars(),
        (c) => c.Make,
        (c) => c.Horsepower,
      );
      for (const p of d) expect(p.value).toBeCloseTo(sum(hp.get(String(p.x))!) / hp.get(String(p.x))!.length, 2);
    },
  },
  {
    request: "make me a bar chart of price by origin",
    file: "inventory/Cars Dataset.csv",
    kind: "bar chart",
    columns: ["Origin", "Price ($)"],
    notColumns: ["Make"],
    agg: "mean",
    // Prices are text like "$23,456" in the file; the chart code reads them as numbers.
    data: (d) => {
      const prices = groupBy(
        cars(),
        (c) => c.Origin,
        (c) => c.price,
      );
      for (const p of d)
        expect(p.value).toBeCloseTo(sum(prices.get(String(p.x))!) / prices.get(String(p.x))!.length, 1);
    },
  },
  {
    request: "line chart of page views over time",
    file: "metrics/web_traffic.csv",
    kind: "line chart",
    columns: ["Day", "Page Views"],
    code: (code) => expect(code).toContain('"type": "temporal"'),
    // US-style dates become ISO dates, in order.
    data: (d, r) => {
      expect(r.points).toBe(20);
      expect(d[0]).toMatchObject({ x: "2024-01-01", value: traffic()[0]!.views });
      expect(d[19]).toMatchObject({ x: "2024-01-20", value: traffic()[19]!.views });
    },
  },
  {
    request: "monthly spending from transactions.jsonl",
    file: "finance/transactions.jsonl",
    kind: "line chart",
    columns: ["ts", "amount"],
    agg: "sum",
    searchQuery: "transactions.jsonl",
    data: (d) => {
      expect(d.map((p) => p.x)).toEqual(["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"]);
      const jan = sum(
        transactions()
          .filter((t) => t.ts.startsWith("2024-01"))
          .map((t) => t.amount),
      );
      expect(d[0]!.value).toBe(jan);
    },
  },
  {
    request: "stacked bar chart of exoplanet discoveries per year by method",
    file: "reports/2024/exoplanet-discoveries.csv",
    kind: "bar chart",
    columns: ["Year"],
    code: (code) => {
      expect(code).toContain(JSON.stringify(["Transit", "Radial velocity", "Microlensing", "Imaging", "Other"]));
      expect(code).not.toContain("xOffset");
    },
  },
  {
    request: "Orbital launch attempts vs. successes",
    file: "data/launches-by-year.csv",
    kind: "line chart",
    columns: ["Year"],
    code: (code) =>
      expect(code).toContain(`const measures = ${JSON.stringify(["Orbital launch attempts", "Successes"])}`),
    data: (d) => expect(d).toHaveLength(20),
  },
  {
    request: "Scatter plot of mean distance from the Sun vs. orbital period on log-log axes",
    file: "data/planets.xlsx",
    sheet: "Planets",
    kind: "scatter plot",
    columns: ["Mean distance from Sun (10^6 km)", "Orbital period (days)"],
    code: (code) => expect(code.match(/"type": "log"/g)).toHaveLength(2),
  },
  {
    request: "how many students passed per class",
    file: "school/grades-2024.csv",
    kind: "bar chart",
    columns: ["Class", "Passed"],
    notColumns: ["Student ID"],
    agg: "count",
    data: (d) => {
      const passed = groupBy(
        grades().filter((g) => g.score >= 50),
        (g) => g.cls,
        () => 1,
      );
      for (const p of d) expect(p.value).toBe(passed.get(String(p.x))!.length);
    },
  },
  {
    request: "requests per status code",
    file: "ops/requests.json",
    kind: "bar chart",
    columns: ["status"],
    agg: "count",
    answer: ["Number of requests: 200 (16), 404 (7), 500 (7)"],
  },
  {
    request: "points by team from the 2024 sheet",
    file: "sports/League Table.xlsx",
    sheet: "2024",
    kind: "bar chart",
    columns: ["Team", "Points"],
    data: (d) =>
      expect(d.map((p) => [p.x, p.value])).toEqual([
        ["Tigers", 24],
        ["Bears", 18],
        ["Lions", 12],
      ]),
  },
  {
    request: "bar chart of wins by team",
    file: "sports/League Table.xlsx",
    sheet: "2023",
    kind: "bar chart",
    columns: ["Team", "Won"],
    notColumns: ["Lost"],
  },
  {
    request: "Visualise the observatories by country",
    file: "data/observatories.csv",
    kind: "bar chart",
    columns: ["Country"],
    agg: "count",
    data: (d) => expect(d[0]).toMatchObject({ x: "Chile", value: 4 }),
  },
];

describe("offline planner charts, end to end", () => {
  for (const c of CASES) {
    it(c.request, async () => {
      await expectChart(c);
    });
  }

  it("keeps the subject of the previous chart for a follow-up ('now as a pie chart')", async () => {
    const first = await run(env, "bar chart of total units by region");
    expect(first.outputs[0]).toBe("generated_assets/total-units-by-region-bar.png");
    const second = await run(env, "now as a pie chart", first.messages);
    expect(second.codes[second.codes.length - 1]).toContain("pie chart from sales/2025/q1_orders.csv");
    expect(second.outputs).toEqual(["generated_assets/total-units-by-region-pie.png"]);
    // Tool call ids stay unique across the thread.
    const ids = second.messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((t) => t.id) : []));
    expect(new Set(ids).size).toBe(ids.length);
    // Follow-ups chain: the pie from turn 2, limited to the top 2 regions.
    const third = await run(env, "only the top 2", second.messages);
    expect(third.outputs).toEqual(["generated_assets/top-regions-pie.png"]);
    const totals = groupBy(
      orders(),
      (o) => o.region,
      (o) => o.units,
    );
    const top2 = [...totals]
      .map(([k, v]) => [k, sum(v)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2);
    expect((chartResult(third).data as Point[]).map((p) => [p.x, p.value])).toEqual(top2);
  });
});
