import type { ChartPlan } from "./chart-plan.js";

/*
 * The JavaScript the planner sends to exec_run_js, written the way a careful LLM would: plain
 * readable code with the file paths and column names as string literals, so a user reading the
 * tool call (or the audit log) sees exactly what was computed. The first comment line names the
 * step ("// Inspect", "// Describe", "// Preview", "// Chart", "// Rank"): state.ts reads it back
 * to know which step a past call was, since the planner keeps no memory between calls.
 */

export type CodeStep = "inspect" | "describe" | "preview" | "chart" | "rank";

const STEP_PREFIX: Record<CodeStep, string> = {
  inspect: "// Inspect",
  describe: "// Describe",
  preview: "// Preview",
  chart: "// Chart",
  rank: "// Rank",
};

/** Which step a piece of planner-written code performs (undefined for anyone else's code). */
export function codeStep(code: string): CodeStep | undefined {
  const first = code.trimStart().split("\n", 1)[0] ?? "";
  for (const [step, prefix] of Object.entries(STEP_PREFIX) as [CodeStep, string][]) {
    if (first.startsWith(prefix)) return step;
  }
  return undefined;
}

const lit = (v: unknown) => JSON.stringify(v);

/** Numbers from cells that hold "1,234", "$5", "12%" as text, or null. */
const NUM_HELPER = `const num = (v) => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim().replace(/[\\s,$€£¥%]/g, "");
  return /^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?$/i.test(t) ? Number(t) : null;
};`;

/** readTable names a workbook's sheets in its error when asked for one that does not exist. */
const SHEETS_HELPER = `async function sheetsOf(path) {
  if (!/\\.xlsx$/i.test(path)) return [];
  try {
    await readTable(path, { sheet: "?" });
  } catch (err) {
    const m = /sheets are: (.*?)\\. Pass/.exec(String(err?.message ?? err));
    if (m) return [...m[1].matchAll(/"((?:[^"\\\\]|\\\\.)*)"/g)].map((x) => JSON.parse(\`"\${x[1]}"\`));
  }
  return [];
}`;

/** Column name, inferred type and summary of every column (full: also mean and frequent values). */
const PROFILE_HELPER = `function profile(rows, full) {
  const names = [];
  for (const r of rows.slice(0, 500)) for (const k of Object.keys(r)) if (!names.includes(k)) names.push(k);
  const isDate = (v) =>
    typeof v === "string" &&
    (/^\\d{4}-\\d{2}(-\\d{2})?([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$/.test(v.trim()) ||
      /^(\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}|\\d{4}\\/\\d{1,2}\\/\\d{1,2}|[A-Za-z]{3,9}\\.? \\d{1,2},? \\d{4}|\\d{1,2} [A-Za-z]{3,9}\\.? \\d{4})$/.test(v.trim()));
  const isBool = (v) => typeof v === "boolean" || (typeof v === "string" && /^(true|false|yes|no)$/i.test(v.trim()));
  return names.slice(0, 80).map((name) => {
    const vals = rows.map((r) => r[name]).filter((v) => v !== null && v !== undefined && v !== "");
    const nums = vals.map(num).filter((n) => n !== null);
    let type = "text";
    if (vals.length === 0) type = "empty";
    else if (vals.every(isBool)) type = "boolean";
    else if (nums.length >= 0.9 * vals.length) type = "number";
    else if (vals.filter(isDate).length >= 0.9 * vals.length) type = "date";
    const examples = [...new Set(vals)].slice(0, 3).map((v) => (typeof v === "string" && v.length > 40 ? v.slice(0, 40) + "…" : v));
    const col = { name, type, count: vals.length, distinct: new Set(vals.map(String)).size, examples };
    if (type === "number") {
      col.min = nums.reduce((a, b) => Math.min(a, b));
      col.max = nums.reduce((a, b) => Math.max(a, b));
      col.integer = nums.every(Number.isInteger);
      if (full) col.mean = nums.reduce((a, b) => a + b, 0) / nums.length;
    } else if (type === "date") {
      const sorted = vals.map(String).sort();
      col.min = sorted[0];
      col.max = sorted[sorted.length - 1];
    } else if (full && type !== "empty") {
      const freq = new Map();
      for (const v of vals) freq.set(String(v), (freq.get(String(v)) ?? 0) + 1);
      col.top = [...freq].sort((a, b) => b[1] - a[1]).slice(0, 3);
    }
    return col;
  });
}`;

const SHORT_ROWS = `const short = (rows) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && v.length > 60 ? v.slice(0, 60) + "…" : v])));`;

/** Reads candidate tables (every sheet of a workbook) and returns their columns, types and 3 rows. */
export function inspectCode(files: readonly string[]): string {
  return `// Inspect ${files.length === 1 ? files[0] : `${files.length} candidate tables`}: columns, inferred types and a few rows
const files = ${lit(files)};
${NUM_HELPER}
${SHEETS_HELPER}
${PROFILE_HELPER}
${SHORT_ROWS}
const tables = [];
for (const path of files) {
  const sheets = await sheetsOf(path);
  for (const sheet of sheets.length > 0 ? sheets.slice(0, 8) : [undefined]) {
    const where = sheet === undefined ? { path } : { path, sheet, sheets };
    try {
      const rows = await readTable(path, sheet === undefined ? {} : { sheet });
      tables.push({ ...where, rows: rows.length, columns: profile(rows, false), sample: short(rows.slice(0, 3)) });
    } catch (err) {
      tables.push({ ...where, error: String(err?.message ?? err) });
    }
  }
}
return { tables };`;
}

/** Full statistics of one table (one sheet, or every sheet of a workbook). */
export function describeCode(file: string, sheet?: string): string {
  return `// Describe ${file}${sheet ? ` (sheet ${lit(sheet)})` : ""}: columns, types, row count and statistics
const path = ${lit(file)};
${NUM_HELPER}
${SHEETS_HELPER}
${PROFILE_HELPER}
${SHORT_ROWS}
const sheets = await sheetsOf(path);
const wanted = ${sheet === undefined ? "sheets.length > 0 ? sheets.slice(0, 8) : [undefined]" : `[${lit(sheet)}]`};
const tables = [];
for (const sheet of wanted) {
  const rows = await readTable(path, sheet === undefined ? {} : { sheet });
  tables.push({ path, ...(sheet === undefined ? {} : { sheet, sheets }), rows: rows.length, columns: profile(rows, true), sample: short(rows.slice(0, 3)) });
}
return { tables };`;
}

/** The first rows of a table, for a preview as a markdown table (a sheet named loosely: "dwarf"). */
export function previewCode(file: string, rows: number, sheet?: string): string {
  const pick =
    sheet === undefined
      ? "const sheet = sheets[0];"
      : `const wanted = ${lit(sheet.toLowerCase())};
const sheet = sheets.find((s) => s.toLowerCase() === wanted) ?? sheets.find((s) => s.toLowerCase().includes(wanted)) ?? sheets[0];`;
  return `// Preview ${file}${sheet ? ` (sheet ${lit(sheet)})` : ""}: the first ${rows} rows
const path = ${lit(file)};
${SHEETS_HELPER}
${SHORT_ROWS}
const sheets = await sheetsOf(path);
${pick}
const rows = await readTable(path, sheet === undefined ? {} : { sheet });
return { path, sheet, sheets, rows: rows.length, columns: Object.keys(rows[0] ?? {}), head: short(rows.slice(0, ${rows})) };`;
}

// ---------------------------------------------------------------------------------------------
// Charts

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

/** Dates written any way ("01/05/2024", "Jan 5, 2024") as ISO "2024-01-05", so they sort and bucket. */
const ISO_HELPER = `const iso = (v) => {
  if (typeof v !== "string" || /^\\d{4}-\\d{2}/.test(v)) return v;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return v;
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 10);
};`;

/**
 * Scatter labels that never collide: the scales get fixed domains (data range plus 6 %, no "nice"
 * rounding), so the code knows each point's pixel position; each label then takes the first spot
 * beside its point (right, left, above, below, the diagonals) whose box stays inside the plot and
 * overlaps no placed label and no point, else it is left off (the tooltip still names the point).
 * Label positions go into the data as `lx`/`ly`, read by the text layer with the same scales.
 */
const LABEL_HELPER = `function placeLabels(data, spec, scaleType) {
  const W = spec.width, H = spec.height, FONT = 11, GAP = 7, R = 5, LINE = FONT * 1.3;
  const fwd = scaleType === "log" ? Math.log10 : scaleType === "symlog" ? (v) => Math.sign(v) * Math.log1p(Math.abs(v)) : (v) => v;
  const inv = scaleType === "log" ? (t) => 10 ** t : scaleType === "symlog" ? (t) => Math.sign(t) * Math.expm1(Math.abs(t)) : (t) => t;
  const range = (key) => {
    const ts = data.map((d) => fwd(d[key]));
    const lo = Math.min(...ts), hi = Math.max(...ts), pad = (hi - lo) * 0.06 || 1;
    return [lo - pad, hi + pad];
  };
  const [x0, x1] = range("x"), [y0, y1] = range("y");
  for (const layer of [spec, spec.layer[1]]) {
    for (const [ch, lo, hi] of [["x", x0, x1], ["y", y0, y1]]) {
      layer.encoding[ch].scale = { ...(scaleType === "linear" ? { zero: false } : { type: scaleType }), domain: [inv(lo), inv(hi)], nice: false };
    }
  }
  const px = (d) => ((fwd(d.x) - x0) / (x1 - x0)) * W;
  const py = (d) => H - ((fwd(d.y) - y0) / (y1 - y0)) * H;
  // Text width from the characters (generous, so real glyphs fit inside the box).
  const width = (text) => [...text].reduce((w, c) => w + (/[mwMW@%]/.test(c) ? 1 : /[A-Z0-9]/.test(c) ? 0.75 : /[iljtfrI.,:;'|!() ]/.test(c) ? 0.45 : 0.64), 0) * FONT;
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const taken = data.map((d) => ({ left: px(d) - R, right: px(d) + R, top: py(d) - R, bottom: py(d) + R }));
  for (const d of data) {
    if (d.label == null || String(d.label).trim() === "") continue;
    const w = width(String(d.label)), h = LINE, x = px(d), y = py(d), g = GAP * 0.7;
    const spots = [
      [x + GAP + w / 2, y], [x - GAP - w / 2, y], [x, y - GAP - h / 2], [x, y + GAP + h / 2],
      [x + g + w / 2, y - g - h / 2], [x + g + w / 2, y + g + h / 2], [x - g - w / 2, y - g - h / 2], [x - g - w / 2, y + g + h / 2],
    ];
    for (const [cx, cy] of spots) {
      const box = { left: cx - w / 2, right: cx + w / 2, top: cy - h / 2, bottom: cy + h / 2 };
      if (box.left < 0 || box.right > W || box.top < 0 || box.bottom > H) continue;
      if (taken.some((t) => overlaps(t, box))) continue;
      taken.push(box);
      d.lx = inv(x0 + (cx / W) * (x1 - x0));
      d.ly = inv(y0 + ((H - cy) / H) * (y1 - y0));
      break;
    }
  }
}`;

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

function xEncoding(plan: ChartPlan): Record<string, unknown> {
  const base = { field: "x", title: plan.xTitle };
  switch (plan.xKind) {
    case "temporal":
      return {
        ...base,
        type: "temporal",
        timeUnit:
          plan.timeUnit === "month" ? "utcyearmonth" : plan.timeUnit === "year" ? "utcyear" : "utcyearmonthdate",
      };
    case "year":
      return plan.type === "line"
        ? { ...base, type: "quantitative", scale: { zero: false }, axis: { format: "d", tickMinStep: 1 } }
        : { ...base, type: "ordinal", sort: null, axis: { labelAngle: 0 } };
    case "quantitative":
      return { ...base, type: "quantitative", scale: { zero: false } };
    case "ordinal":
      return { ...base, type: "ordinal", sort: null };
    default:
      return { ...base, type: "nominal", sort: null, axis: { labelAngle: -40, labelLimit: 160 } };
  }
}

function yEncoding(plan: ChartPlan): Record<string, unknown> {
  return {
    field: "value",
    type: "quantitative",
    title: plan.yTitle,
    ...(plan.logScale ? { scale: { type: plan.logScale } } : {}),
  };
}

/** The Vega-Lite spec for a plan, without its data (the code adds `data.values`). */
export function chartSpec(plan: ChartPlan): Record<string, unknown> {
  const multi = plan.series !== undefined || plan.measures.length > 1;
  const seriesTitle = plan.series ?? "Series";
  switch (plan.type) {
    case "pie":
      return {
        title: plan.title,
        width: 360,
        height: 360,
        mark: { type: "arc", tooltip: true, stroke: "white" },
        encoding: {
          theta: { field: "value", type: "quantitative", title: plan.yTitle, stack: true },
          color: { field: "x", type: "nominal", title: plan.xTitle, sort: null },
          order: { field: "value", type: "quantitative", sort: "descending" },
        },
        view: { stroke: null },
      };
    case "line":
      return {
        title: plan.title,
        width: 640,
        height: 360,
        mark: { type: "line", point: true, tooltip: true },
        encoding: {
          x: xEncoding(plan),
          y: yEncoding(plan),
          ...(multi ? { color: { field: "series", type: "nominal", title: seriesTitle } } : {}),
        },
      };
    case "scatter":
      return {
        title: plan.title,
        width: 560,
        height: 400,
        encoding: {
          x: {
            field: "x",
            type: "quantitative",
            title: plan.xTitle,
            scale: plan.logScale ? { type: plan.logScale } : { zero: false },
          },
          y: {
            field: "y",
            type: "quantitative",
            title: plan.yTitle,
            scale: plan.logScale ? { type: plan.logScale } : { zero: false },
          },
          ...(plan.color ? { color: { field: "color", type: "nominal", title: plan.color } } : {}),
        },
        layer: [
          { mark: { type: "point", filled: true, size: 80, tooltip: true } },
          ...(plan.label
            ? [
                {
                  // Positions from placeLabels in the chart code: beside the point, never over another label.
                  transform: [{ filter: "isValid(datum.lx) && isValid(datum.ly)" }],
                  mark: { type: "text", align: "center", baseline: "middle", fontSize: 11 },
                  encoding: {
                    x: { field: "lx", type: "quantitative", title: plan.xTitle },
                    y: { field: "ly", type: "quantitative", title: plan.yTitle },
                    text: { field: "label" },
                  },
                },
              ]
            : []),
        ],
      };
    case "histogram":
      return {
        title: plan.title,
        width: 560,
        height: 340,
        mark: { type: "bar", tooltip: true },
        encoding: {
          x: { field: "value", type: "quantitative", bin: { maxbins: 20 }, title: plan.xTitle },
          y: { aggregate: "count", type: "quantitative", title: "Count" },
        },
      };
    default:
      return {
        title: plan.title,
        height: 360,
        mark: { type: "bar", tooltip: true },
        encoding: {
          x: xEncoding(plan),
          y: yEncoding(plan),
          ...(multi
            ? {
                color: { field: "series", type: "nominal", title: seriesTitle },
                ...(plan.stacked ? {} : { xOffset: { field: "series" } }),
              }
            : {}),
        },
      };
  }
}

/** Reads the table, shapes the data, renders the chart to generated_assets/<name>.png. */
export function chartCode(plan: ChartPlan, opts: { format?: "png" | "both" } = {}): string {
  const header = `// Chart: ${plan.title} — ${plan.summary.split(" of ")[0]} from ${plan.file}${plan.sheet ? ` (sheet ${lit(plan.sheet)})` : ""}`;
  let data: string;
  if (plan.type === "scatter") {
    data = [
      `let data = rows`,
      `  .map((r) => ({ x: num(r[${lit(plan.x)}]), y: num(r[${lit(plan.y)}])${plan.label ? `, label: r[${lit(plan.label)}]` : ""}${plan.color ? `, color: r[${lit(plan.color)}]` : ""} }))`,
      `  .filter((d) => d.x !== null && d.y !== null);`,
      ...(plan.label
        ? [
            `// Label the points only when they stay readable`,
            `if (data.length > 40) data = data.map(({ label, ...d }) => d);`,
          ]
        : []),
    ].join("\n");
  } else if (plan.type === "histogram") {
    data = `const data = rows.map((r) => ({ value: num(r[${lit(plan.x)}]) })).filter((d) => d.value !== null);`;
  } else {
    data = dataCode(plan);
  }
  const spec = JSON.stringify(chartSpec(plan), null, 2);
  const width =
    plan.type === "scatter" && plan.label
      ? `\n// Labels beside their points, none over another (left off where there is no room)\nplaceLabels(data, spec, ${lit(plan.logScale || "linear")});`
      : plan.type === "bar"
        ? `\nspec.width = Math.max(360, Math.min(1000, data.length * ${plan.series || plan.measures.length > 1 ? 18 : 36}));`
        : plan.type === "line"
          ? `\n// Point markers only while they stay readable\nspec.mark.point = data.length <= 40;`
          : "";
  const summary =
    plan.type === "histogram"
      ? `{ count: data.length, min: data.reduce((a, d) => Math.min(a, d.value), Infinity), max: data.reduce((a, d) => Math.max(a, d.value), -Infinity) }`
      : `data.slice(0, 25)`;
  const extremes =
    plan.type === "histogram" || plan.type === "scatter"
      ? ""
      : `\nconst byValue = [...data].sort((a, b) => a.value - b.value);
const range = { first: data[0], last: data[data.length - 1], min: byValue[0], max: byValue[byValue.length - 1] };`;
  return `${header}
${readRows(plan)}
${NUM_HELPER}${plan.xKind === "temporal" ? `\n${ISO_HELPER}` : ""}${plan.type === "scatter" && plan.label ? `\n${LABEL_HELPER}` : ""}
${data}
if (data.length === 0) throw new Error("No rows with values to plot (every value was empty or not a number).");
const spec = ${spec};
spec.data = { values: data };${width}
const out = await chart(spec, ${lit(plan.name)}, { format: ${lit(opts.format ?? "png")} });${extremes}
return { chart: out.png, svg: out.svg, points: data.length, data: ${summary}${extremes ? ", range" : ""} };`;
}

/** For "which … is the largest": the same data as a ranked bar chart, returned instead of drawn. */
export function rankCode(plan: ChartPlan): string {
  return `// Rank: ${plan.title} from ${plan.file}${plan.sheet ? ` (sheet ${lit(plan.sheet)})` : ""}
${readRows(plan)}
${NUM_HELPER}${plan.xKind === "temporal" ? `\n${ISO_HELPER}` : ""}
${dataCode(plan)}
return { rows: rows.length, data };`;
}
