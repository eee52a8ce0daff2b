import type { ExecOutcome, FoundEntry, ListedEntry } from "./results.js";
import { isYearValues } from "./table.js";
import { fmt, str } from "./text.js";
import type { ChartPlan, ColumnProfile, TableProfile } from "./types.js";

/*
 * The planner's final answers: short and factual, naming paths, never pretending to be an LLM.
 * Every "I can't" answer says what the offline planner can do and how to configure a real model.
 */

const EXAMPLES = [
  `"list the files in data" · "find files about moons" · "files containing Jupiter"`,
  `"open notes/ideas.md" · "preview data/observatories.csv" · "describe data/missions.json"`,
  `"pie chart of the 5 largest planets from data/planets.xlsx" · "bar chart of moons by planet"`,
  `"line chart of launches over the years" · "histogram of diameters" · "scatter plot of mass vs diameter"`,
  `"average salary by department" · "count of missions per agency" · "which planet has the most moons?"`,
  `"how many missions went to Mars?" · "planets with more than 10 moons" · "median salary per department"`,
  `"join data/moons/major-moons.tsv with data/planets.xlsx on planet" · "convert data/observatories.csv to json" · "distinct agencies"`,
];

const CONFIGURE =
  "For anything else, configure a real model: set ANTHROPIC_API_KEY, OPENAI_API_KEY (plus OPENAI_BASE_URL for an " +
  "OpenAI-compatible endpoint) or OLLAMA_HOST, or pick one explicitly with TEXTIDE_MODEL=provider:model " +
  "(e.g. TEXTIDE_MODEL=ollama:llama3.1), then restart.";

/** What the offline planner understands, and how to get a real model. */
export function capabilities(lead?: string): string {
  return [
    lead ??
      "This is the offline planner, textide's built-in rule-based assistant (no LLM is configured), and it did not recognise that request.",
    "",
    "It understands requests to explore and chart the workspace's files, for example:",
    ...EXAMPLES.map((e) => `- ${e}`),
    "",
    "Charts work on .csv, .tsv, .xlsx (any sheet) and .json tables: bar, pie, line, scatter and histogram, with top/smallest N, " +
      '"by <column>", "over <column>", and averages, totals or counts. Filters, counts, medians, distinct values, joins ' +
      "and conversions run as SQL through sql_query, and the answer shows the SQL.",
    "",
    CONFIGURE,
  ].join("\n");
}

export function notFound(what: string, suggestions: string[] = [], label = "Files that exist include"): string {
  return capabilities(
    [
      `No file matches ${what} in the workspace.`,
      suggestions.length > 0 ? `${label}: ${suggestions.slice(0, 8).join(", ")}.` : "",
    ]
      .filter(Boolean)
      .join(" "),
  );
}

function valueOf(d: Record<string, unknown>, plan?: ChartPlan): string {
  return plan?.yearValues && typeof d.value === "number" ? String(d.value) : fmt(d.value);
}

/** "Created generated_assets/x.png — pie chart of … : Jupiter (142,984), …". */
export function chartDone(plan: ChartPlan, outcome: ExecOutcome): string {
  const files = outcome.outputs.map((o) => o.path);
  const png = files.find((f) => f.endsWith(".png")) ?? files[0] ?? `generated_assets/${plan.name}.png`;
  type Point = Record<string, unknown>;
  const result = (outcome.result ?? {}) as {
    data?: unknown;
    points?: unknown;
    range?: { first?: Point; last?: Point; min?: Point; max?: Point };
  };
  const data = Array.isArray(result.data) ? (result.data as Record<string, unknown>[]) : [];
  const source = `${plan.file}${plan.sheet ? ` (sheet "${plan.sheet}")` : ""}`;
  const lines = [`Created ${png} — ${plan.summary}, from ${source}.`];
  if (files.length > 1) lines[0] += ` Also written: ${files.filter((f) => f !== png).join(", ")}.`;
  if (plan.type === "histogram") {
    const h = (result.data ?? {}) as { count?: unknown; min?: unknown; max?: unknown };
    lines.push(`${fmt(h.count)} values from ${fmt(h.min)} to ${fmt(h.max)}.`);
  } else if (plan.type === "scatter") {
    lines.push(`${fmt(result.points)} points.`);
  } else if (data.length > 0 && plan.sort === "x" && result.range && plan.xKind !== "ordinal") {
    // A time axis: the range and the extremes say more than the first few points.
    const { first, last, min, max } = result.range;
    const series =
      plan.measures.length > 1
        ? plan.measures
        : plan.series
          ? [...new Set(data.map((d) => String(d.series)))]
          : undefined;
    const tag = (d: Record<string, unknown> | undefined) =>
      d ? `${fmt(d.value)} (${String(d.x)}${series ? `, ${String(d.series)}` : ""})` : "—";
    lines.push(
      `${fmt(result.points)} points${series ? ` in ${series.length}${plan.series ? "+" : ""} series (${series.join(", ")})` : ""}` +
        ` from ${String(first?.x)} to ${String(last?.x)}; highest ${tag(max)}, lowest ${tag(min)}.`,
    );
  } else if (data.length > 0 && !(plan.series || plan.measures.length > 1)) {
    const shown = data.slice(0, 8).map((d) => `${String(d.x)} (${valueOf(d, plan)})`);
    const more =
      typeof result.points === "number" && result.points > shown.length ? `, … (${result.points} in all)` : "";
    lines.push(`${plan.yTitle}: ${shown.join(", ")}${more}.`);
  } else if (data.length > 0) {
    const series = new Set(data.map((d) => String(d.series)));
    lines.push(`${fmt(result.points)} bars in ${series.size} series: ${[...series].join(", ")}.`);
  }
  if (plan.notes.length > 0) lines.push(plan.notes.join(" "));
  return lines.join("\n");
}

/** "Jupiter has the largest Diameter (km): 142,984. Next: …". */
export function rankDone(plan: ChartPlan, outcome: ExecOutcome): string {
  const result = (outcome.result ?? {}) as { data?: unknown; rows?: unknown };
  const data = Array.isArray(result.data) ? (result.data as Record<string, unknown>[]) : [];
  if (data.length === 0) return `No rows of ${plan.file} have a value for ${plan.measures[0] ?? plan.x}.`;
  if (plan.overall) {
    const rows = typeof result.rows === "number" ? `, ${result.rows} rows` : "";
    return [
      `${plan.yTitle}: ${valueOf(data[0]!, plan)} (${plan.file}${plan.sheet ? `, sheet "${plan.sheet}"` : ""}${rows}).`,
      ...plan.notes,
    ].join("\n");
  }
  const [first, ...rest] = data;
  const measure = plan.agg === "count" ? plan.yTitle.toLowerCase() : plan.yTitle;
  const head = `**${String(first!.x)}** — ${measure}: ${valueOf(first!, plan)} (${plan.sort === "asc" ? "lowest" : "highest"} in ${plan.file}${plan.sheet ? `, sheet "${plan.sheet}"` : ""}).`;
  const next = rest.length > 0 ? `Next: ${rest.map((d) => `${String(d.x)} (${valueOf(d, plan)})`).join(", ")}.` : "";
  return [head, next, ...plan.notes].filter(Boolean).join("\n");
}

function cell(v: unknown): string {
  const s = str(v);
  const flat = s.replace(/\s+/g, " ").replace(/\|/g, "\\|");
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}

/** Rows as a markdown table (at most 10 columns). */
export function markdownTable(columns: string[], rows: Record<string, unknown>[]): string {
  const cols = columns.slice(0, 10);
  const out = [`| ${cols.map(cell).join(" | ")} |`, `| ${cols.map(() => "---").join(" | ")} |`];
  for (const r of rows) out.push(`| ${cols.map((c) => cell(r[c])).join(" | ")} |`);
  if (columns.length > cols.length) out.push(`\n(${columns.length - cols.length} more columns not shown)`);
  return out.join("\n");
}

function columnLine(c: ColumnProfile): string {
  const parts = [`${c.count} values`, `${c.distinct} distinct`];
  if (c.type === "number" && isYearValues(c)) {
    parts.push(`from ${String(c.min)} to ${String(c.max)}`);
  } else if (c.type === "number") {
    parts.push(`min ${fmt(c.min)}`, `max ${fmt(c.max)}`);
    if (c.mean !== undefined) parts.push(`mean ${fmt(c.mean)}`);
  } else if (c.distinct >= c.count && c.examples.length > 0) {
    parts.push(`e.g. ${c.examples.map(cell).join(", ")}`);
  } else if (c.type === "date") {
    parts.push(`from ${String(c.min)} to ${String(c.max)}`);
  } else if (c.top && c.top.length > 0) {
    parts.push(`most common: ${c.top.map(([v, n]) => `${cell(v)} (${n})`).join(", ")}`);
  }
  return `| ${cell(c.name)} | ${c.type} | ${parts.join("; ")} |`;
}

/** Columns, types, counts and statistics of each described table. */
export function describeDone(tables: TableProfile[]): string {
  const out: string[] = [];
  const sheets = tables[0]?.sheets;
  for (const t of tables) {
    out.push(
      `**${t.path}**${t.sheet ? ` — sheet "${t.sheet}"` : ""}: ${t.rows} rows × ${t.columns.length} columns`,
      "",
      "| column | type | summary |",
      "| --- | --- | --- |",
      ...t.columns.map(columnLine),
      "",
    );
  }
  if (sheets && sheets.length > tables.length)
    out.push(`Other sheets: ${sheets.filter((s) => !tables.some((t) => t.sheet === s)).join(", ")}.`);
  return out.join("\n").trim();
}

export function previewTableDone(result: Record<string, unknown>, asked: number): string {
  const head = Array.isArray(result.head) ? (result.head as Record<string, unknown>[]) : [];
  const columns = Array.isArray(result.columns) ? result.columns.map(String) : Object.keys(head[0] ?? {});
  const sheets = Array.isArray(result.sheets) ? result.sheets.map(String) : [];
  const total = typeof result.rows === "number" ? result.rows : head.length;
  const sheet = typeof result.sheet === "string" ? result.sheet : undefined;
  return [
    `**${String(result.path)}**${sheet ? ` — sheet "${sheet}"` : ""}: ${total} rows × ${columns.length} columns${total > head.length ? ` (first ${Math.min(asked, head.length)} shown)` : ""}.`,
    "",
    markdownTable(columns, head),
    sheets.length > 1 ? `\nSheets: ${sheets.join(", ")}.` : "",
  ]
    .join("\n")
    .trim();
}

export function previewTextDone(
  path: string,
  text: string,
  structured: Record<string, unknown> | undefined,
  lines: number,
): string {
  const mime = typeof structured?.mime === "string" ? structured.mime : "";
  const encoding = typeof structured?.encoding === "string" ? structured.encoding : "";
  const size = typeof structured?.size === "number" ? structured.size : undefined;
  if (encoding === "base64" || /^(image|audio|video)\//.test(mime) || mime === "application/octet-stream") {
    return `**${path}** is a binary file (${[mime, size !== undefined ? `${fmt(size)} bytes` : ""].filter(Boolean).join(", ")}); it cannot be shown as text here. ${text.split("\n")[0] ?? ""}`.trim();
  }
  const all = text.replace(/\r\n/g, "\n").split("\n");
  const shown = all.slice(0, lines);
  const more = all.length > lines || structured?.truncated === true;
  const lang = /\.(\w+)$/.exec(path)?.[1]?.toLowerCase() ?? "";
  const fence = shown.some((l) => l.startsWith("```")) ? "~~~~" : "```";
  return [
    `**${path}**${size !== undefined ? ` (${fmt(size)} bytes)` : ""}${more ? ` — first ${shown.length} lines` : ""}:`,
    "",
    `${fence}${lang === "md" ? "markdown" : lang}`,
    ...shown,
    fence,
  ].join("\n");
}

export function listDone(path: string, entries: ListedEntry[], truncated: boolean): string {
  if (entries.length === 0) return `${path === "." ? "The workspace" : path} is empty.`;
  const files = entries.filter((e) => e.type !== "directory");
  const shown = entries.slice(0, 60).map((e) => {
    const depth = path === "." ? e.path.split("/").length - 1 : e.path.split("/").length - path.split("/").length - 1;
    const indent = "  ".repeat(Math.max(0, depth));
    // A file links to its full workspace path: the name alone would mean a file at the top of the workspace.
    const name = e.type === "directory" ? `${e.name}/` : `[${mdText(e.name)}](${mdUrl(e.path)})`;
    return `${indent}- ${name}${e.size !== undefined ? ` (${fmtSize(e.size)})` : ""}`;
  });
  return [
    `**${path === "." ? "project_root" : path}** — ${files.length} file${files.length === 1 ? "" : "s"}, ${entries.length - files.length} folder${entries.length - files.length === 1 ? "" : "s"}${truncated || entries.length > 60 ? " (truncated)" : ""}:`,
    "",
    ...shown,
  ].join("\n");
}

/** A file name as Markdown link text (brackets and emphasis characters escaped). */
function mdText(name: string): string {
  return name.replace(/[\\[\]*_`]/g, "\\$&");
}

/** A workspace path as a Markdown link destination (spaces and parentheses encoded). */
function mdUrl(path: string): string {
  return path.replace(/[ ()<>%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

function fmtSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function findDone(what: string, matches: FoundEntry[]): string {
  if (matches.length === 0) return notFound(what);
  const shown = matches
    .slice(0, 40)
    .flatMap((m) => [
      `- ${m.path}${m.type === "directory" ? "/" : ""}`,
      ...(m.lines ?? []).slice(0, 3).map((l) => `  - line ${l.line}: ${cell(l.text)}`),
    ]);
  return [
    `${matches.length} match${matches.length === 1 ? "" : "es"} for ${what}${matches.length > 40 ? " (first 40 shown)" : ""}:`,
    "",
    ...shown,
  ].join("\n");
}
