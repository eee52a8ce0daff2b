import { CHART_KINDS } from "../chart/kinds.js";
import type { ChartPlan } from "../types.js";
import { ISO_HELPER, lit, NUM_HELPER } from "./helpers.js";

/* Code that shapes a table's rows for a chart plan and renders it (or returns it, for a ranking). */

function readRows(plan: ChartPlan): string {
  const opts = plan.sheet === undefined ? "" : `, { sheet: ${lit(plan.sheet)} }`;
  const used = [
    ...new Set(
      [plan.x, plan.y, plan.label, plan.color, plan.series, plan.filter, plan.countOf, ...plan.measures].filter(
        (c): c is string => c !== undefined,
      ),
    ),
  ];
  return `const rows = await readTable(${lit(plan.file)}${opts});
const missing = ${lit(used)}.filter((c) => rows.length > 0 && !(c in rows[0]));
if (missing.length > 0) throw new Error(\`Column not found: \${missing.join(", ")}. Columns are: \${Object.keys(rows[0]).join(", ")}\`);`;
}

const AGG_FN: Record<string, string> = {
  sum: "(vs) => vs.reduce((a, b) => a + b, 0)",
  mean: "(vs) => vs.reduce((a, b) => a + b, 0) / vs.length",
  count: "(vs) => vs.length",
  min: "(vs) => vs.reduce((a, b) => Math.min(a, b))",
  max: "(vs) => vs.reduce((a, b) => Math.max(a, b))",
  median:
    "(vs) => { const s = [...vs].sort((a, b) => a - b); const m = Math.floor(s.length / 2); return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }",
};

/** How a row's x value is read: the cell, or a date cut to its month or year. */
function xExpr(plan: ChartPlan): string {
  if (plan.overall || plan.x === undefined) return `"all rows"`;
  const cell = plan.xKind === "temporal" ? `iso(r[${lit(plan.x)}])` : `r[${lit(plan.x)}]`;
  if (plan.timeUnit === "month") return `${cell} == null ? null : String(${cell}).slice(0, 7)`;
  if (plan.timeUnit === "year") return `${cell} == null ? null : String(${cell}).slice(0, 4)`;
  return cell;
}

/** JS that leaves the plotted rows in `data` ({x, series?, value}). */
function dataCode(plan: ChartPlan): string {
  const lines: string[] = [];
  let source = "rows";
  if (plan.filter !== undefined) {
    lines.push(
      `// Only rows where ${plan.filter} is true`,
      `const kept = rows.filter((r) => r[${lit(plan.filter)}] === true || /^(true|yes|y|1)$/i.test(String(r[${lit(plan.filter)}])));`,
    );
    source = "kept";
  }
  const x = xExpr(plan);
  if (plan.agg === "count") {
    const cond = plan.countOf !== undefined ? `r[${lit(plan.countOf)}] == null ? null : 1` : "1";
    lines.push(
      `const points = ${source}.map((r) => ({ x: ${x}, ${plan.series ? `series: r[${lit(plan.series)}], ` : ""}value: ${cond} }));`,
    );
  } else if (plan.measures.length > 1) {
    lines.push(
      `// One point per (x, column): each measure column becomes a series`,
      `const measures = ${lit(plan.measures)};`,
      `const points = ${source}.flatMap((r) => measures.map((m) => ({ x: ${x}, series: m, value: num(r[m]) })));`,
    );
  } else {
    lines.push(
      `const points = ${source}.map((r) => ({ x: ${x}, ${plan.series ? `series: r[${lit(plan.series)}], ` : ""}value: num(r[${lit(plan.measures[0])}]) }));`,
    );
  }
  lines.push(
    `const valid = points.filter((p) => p.x !== null && p.x !== undefined && p.x !== "" && p.value !== null);`,
  );
  if (plan.agg === "none") {
    lines.push(`let data = valid;`);
  } else {
    const fn = AGG_FN[plan.agg]!;
    lines.push(
      `// ${plan.agg === "count" ? "Count rows" : `${plan.agg[0]!.toUpperCase()}${plan.agg.slice(1)} of the values`} per ${plan.overall ? "table" : plan.x}${plan.series || plan.measures.length > 1 ? " and series" : ""}`,
      `const ${plan.agg} = ${fn};`,
      `const groups = new Map();`,
      `for (const p of valid) {`,
      `  const key = JSON.stringify([p.x, p.series ?? null]);`,
      `  if (!groups.has(key)) groups.set(key, { x: p.x, series: p.series, values: [] });`,
      `  groups.get(key).values.push(p.value);`,
      `}`,
      `let data = [...groups.values()].map((g) => ({ x: g.x, ${plan.series || plan.measures.length > 1 ? "series: g.series, " : ""}value: ${plan.agg}(g.values) }));`,
    );
    if (plan.agg === "mean" || plan.agg === "median") {
      lines.push(`data = data.map((d) => ({ ...d, value: Math.round(d.value * 100) / 100 }));`);
    }
  }
  if (plan.sort === "desc") lines.push(`data.sort((a, b) => b.value - a.value);`);
  else if (plan.sort === "asc") lines.push(`data.sort((a, b) => a.value - b.value);`);
  else if (plan.sort === "x") lines.push(`data.sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0));`);
  if (plan.limit !== undefined) lines.push(`data = data.slice(0, ${plan.limit});`);
  if (plan.otherBucket) {
    lines.push(
      `// Too many slices for a pie: keep the 9 largest and sum the rest`,
      `if (data.length > 10) data = [...data.slice(0, 9), { x: "Other", value: data.slice(9).reduce((a, d) => a + d.value, 0) }];`,
    );
  }
  return lines.join("\n");
}

/** The Vega-Lite spec for a plan, without its data (the code adds `data.values`). */
export function chartSpec(plan: ChartPlan): Record<string, unknown> {
  return CHART_KINDS[plan.type].spec(plan);
}

/** Reads the table, shapes the data, renders the chart to generated_assets/<name>.png. */
export function chartCode(plan: ChartPlan, opts: { format?: "png" | "both" } = {}): string {
  const kind = CHART_KINDS[plan.type];
  const header = `// Chart: ${plan.title} — ${plan.summary.split(" of ")[0]} from ${plan.file}${plan.sheet ? ` (sheet ${lit(plan.sheet)})` : ""}`;
  const data = kind.data?.(plan) ?? dataCode(plan);
  const spec = JSON.stringify(chartSpec(plan), null, 2);
  const layout = kind.layout?.(plan) ?? "";
  const prelude = kind.prelude?.(plan) ?? "";
  const extremes =
    kind.extremes === false
      ? ""
      : `\nconst byValue = [...data].sort((a, b) => a.value - b.value);
const range = { first: data[0], last: data[data.length - 1], min: byValue[0], max: byValue[byValue.length - 1] };`;
  return `${header}
${readRows(plan)}
${NUM_HELPER}${plan.xKind === "temporal" ? `\n${ISO_HELPER}` : ""}${prelude ? `\n${prelude}` : ""}
${data}
if (data.length === 0) throw new Error("No rows with values to plot (every value was empty or not a number).");
const spec = ${spec};
spec.data = { values: data };${layout ? `\n${layout}` : ""}
const out = await chart(spec, ${lit(plan.name)}, { format: ${lit(opts.format ?? "png")} });${extremes}
return { chart: out.png, svg: out.svg, points: data.length, data: ${kind.summary ?? "data.slice(0, 25)"}${extremes ? ", range" : ""} };`;
}

/** For "which … is the largest": the same data as a ranked bar chart, returned instead of drawn. */
export function rankCode(plan: ChartPlan): string {
  return `// Rank: ${plan.title} from ${plan.file}${plan.sheet ? ` (sheet ${lit(plan.sheet)})` : ""}
${readRows(plan)}
${NUM_HELPER}${plan.xKind === "temporal" ? `\n${ISO_HELPER}` : ""}
${dataCode(plan)}
return { rows: rows.length, data };`;
}
