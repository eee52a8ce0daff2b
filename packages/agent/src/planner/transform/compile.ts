import { pathTokens, MIN_SIM, resolvePhrase, termSim } from "../match.js";
import { slug, stem, stems } from "../text.js";
import type { Agg } from "../types.js";
import type { Comparison, TransformRequest } from "./request.js";
import { asProfile, ident, table, text, wordPattern, type SqlColumn, type ValueHit } from "./sql.js";

/*
 * Request + the real columns (and the text values that matched) → one SQL statement. Every word
 * of the request must land somewhere: the file's name, a column, a value. A word that lands
 * nowhere makes the compilation fail with that word, so the planner never answers a question
 * that was not asked ("how many missions went to Mars?" is never answered with all missions).
 */

const MIN_PHRASE = 0.55;
const AGG_SQL: Record<Agg, string> = {
  count: "count",
  sum: "sum",
  mean: "avg",
  median: "median",
  min: "min",
  max: "max",
};
export const AGG_LABEL: Record<Agg, string> = {
  count: "Number of",
  sum: "Total",
  mean: "Average",
  median: "Median",
  min: "Minimum",
  max: "Maximum",
};

export interface TableSchema {
  path: string;
  columns: SqlColumn[];
}

/** A condition, with the words a person reads in the answer. */
export interface Condition {
  sql: string;
  says: string;
}

export interface Compiled {
  sql: string;
  /** What the statement computes, for the answer. */
  shape: "count" | "aggregate" | "grouped" | "rows" | "distinct" | "join" | "copy";
  file: string;
  conditions: Condition[];
  agg?: Agg;
  measure?: string;
  group?: string;
  distinct?: string;
  /** The name column of the rows (for lists): Planet, name, Model. */
  label?: string;
  output?: string;
  /** The entity the request counts ("missions"), in the request's words. */
  entity?: string;
}

export type CompileResult = { ok: true; compiled: Compiled } | { ok: false; unmapped: string[]; reason?: string };

/** The column a phrase names best, among those accepted. */
function column(words: string[], columns: SqlColumn[], accept: (c: SqlColumn) => boolean = () => true) {
  if (words.length === 0) return undefined;
  const pool = columns.filter(accept);
  const best = resolvePhrase(words, pool.map(asProfile))[0];
  return best && best.score >= MIN_PHRASE ? pool.find((c) => c.name === best.column.name) : undefined;
}

const isNumber = (c: SqlColumn) => c.type === "number";

/** Words that name the file itself ("missions" in missions.json, "cars" in Cars Dataset.csv). */
export function entityWords(words: string[], path: string): string[] {
  const { base, dirs } = pathTokens(path);
  return words.filter((w) => termSim(stem(w), [...base, ...dirs]) >= MIN_SIM);
}

/** Phrases to look up among the text values: pairs of adjacent words first, then single words. */
export function valuePhrases(words: string[]): string[] {
  const pairs = words.slice(0, -1).map((w, i) => `${w} ${words[i + 1]!}`);
  return [...pairs, ...words];
}

/** Maps leftover words to value conditions; returns the conditions and the words left unmapped. */
function mapValues(words: string[], hits: ValueHit[]): { conditions: Condition[]; rest: string[] } {
  const conditions: Condition[] = [];
  let rest = [...words];
  for (const phrase of valuePhrases(words)) {
    const parts = phrase.split(" ");
    if (!parts.every((p) => rest.includes(p))) continue;
    const re = new RegExp(`\\b${parts.join("\\s+")}\\b`, "i");
    const matching = hits.filter((h) => re.test(h.value));
    if (matching.length === 0) continue;
    // The column where the phrase is a whole value, else where it occurs in the most values.
    const byColumn = new Map<string, ValueHit[]>();
    for (const h of matching) byColumn.set(h.column, [...(byColumn.get(h.column) ?? []), h]);
    const isWhole = (h: ValueHit) => h.value.trim().toLowerCase() === phrase;
    const [col, inCol] = [...byColumn].sort(
      (a, b) => Number(b[1].some(isWhole)) - Number(a[1].some(isWhole)) || b[1].length - a[1].length,
    )[0]!;
    // "Jupiter" is also in "Europa (Jupiter)": equality only when the phrase is never part of a longer value.
    if (inCol.every(isWhole)) {
      conditions.push({ sql: `${ident(col)} = ${text(inCol[0]!.value)}`, says: `${col} is "${inCol[0]!.value}"` });
    } else {
      conditions.push({
        sql: `regexp_matches(CAST(${ident(col)} AS VARCHAR), ${text(wordPattern(phrase))})`,
        says: `${col} mentions "${phrase}"`,
      });
    }
    rest = rest.filter((w) => !parts.includes(w));
  }
  return { conditions, rest };
}

const OP_WORD: Record<Comparison["op"], string> = { ">": ">", ">=": "≥", "<": "<", "<=": "≤", "=": "=" };

function comparisonConditions(
  req: TransformRequest,
  columns: SqlColumn[],
): { conditions: Condition[]; unmapped: string[] } {
  const conditions: Condition[] = [];
  const unmapped: string[] = [];
  for (const c of req.comparisons) {
    const col = column(c.after, columns, isNumber) ?? column(c.before, columns, isNumber);
    if (!col) {
      unmapped.push([...c.before, OP_WORD[c.op], String(c.value), ...c.after].join(" ").trim());
      continue;
    }
    conditions.push({ sql: `${ident(col.name)} ${c.op} ${c.value}`, says: `${col.name} ${OP_WORD[c.op]} ${c.value}` });
  }
  return { conditions, unmapped };
}

/** The column that names each row: a text column called name/title, else the first text column. */
function labelOf(columns: SqlColumn[]): string | undefined {
  const texts = columns.filter((c) => c.type === "text");
  return (texts.find((c) => /\b(?:name|title|label)\b|^name|name$/i.test(c.name)) ?? texts[0])?.name;
}

/**
 * Compiles a request against one table. `hits` are the text values that matched the leftover
 * words (from valuesSql); `output` names the file a conversion or export writes.
 */
export function compile(req: TransformRequest, schema: TableSchema, hits: ValueHit[], output?: string): CompileResult {
  const { columns, path } = schema;
  const from = table(path);
  const entity = entityWords(req.words, path);
  let words = req.words.filter((w) => !entity.includes(w));

  const cmp = comparisonConditions(req, columns);
  const values = mapValues(words, hits);
  words = values.rest;
  const conditions = [...cmp.conditions, ...values.conditions];
  // Leftover words that name a column ("show the name and target of …") are columns to show.
  const shown: string[] = [];
  for (const w of [...words]) {
    const col = column([w], columns);
    if (col && resolvePhrase([w], [asProfile(col)])[0]!.score >= 0.8) {
      if (!shown.includes(col.name)) shown.push(col.name);
      words = words.filter((x) => x !== w);
    }
  }
  const unmapped = [...cmp.unmapped, ...words];

  const measure = req.measure.length > 0 ? column(req.measure, columns, isNumber) : undefined;
  if (req.measure.length > 0 && !measure) unmapped.push(req.measure.join(" "));
  const group = req.groupBy.length > 0 ? column(req.groupBy, columns) : undefined;
  if (req.groupBy.length > 0 && !group) unmapped.push(req.groupBy.join(" "));
  const sortCol = req.sort && req.sort.words.length > 0 ? column(req.sort.words, columns) : undefined;
  if (req.sort && req.sort.words.length > 0 && !sortCol) unmapped.push(req.sort.words.join(" "));
  const distinct = req.distinct && req.distinct.length > 0 ? column(req.distinct, columns) : undefined;
  if (req.distinct && req.distinct.length > 0 && !distinct) unmapped.push(req.distinct.join(" "));
  if (req.agg && req.agg !== "count" && req.measure.length === 0)
    unmapped.push(`the column to ${AGG_LABEL[req.agg].toLowerCase()}`);
  if (unmapped.length > 0) return { ok: false, unmapped: [...new Set(unmapped)] };

  const where = conditions.length > 0 ? ` WHERE ${conditions.map((c) => c.sql).join(" AND ")}` : "";
  const base = { file: path, conditions, ...(entity.length > 0 ? { entity: entity.join(" ") } : {}) };
  const label = labelOf(columns);
  const order = (col: string, dir: "asc" | "desc") => ` ORDER BY ${col} ${dir.toUpperCase()} NULLS LAST`;
  const limit = req.limit !== undefined ? ` LIMIT ${req.limit}` : "";

  if (distinct) {
    const sql = `SELECT DISTINCT ${ident(distinct.name)} FROM ${from}${where} ORDER BY 1`;
    return { ok: true, compiled: { ...base, sql, shape: "distinct", distinct: distinct.name } };
  }
  if (req.agg) {
    const fn = AGG_SQL[req.agg];
    const value = req.agg === "count" ? "count(*)" : `${fn}(${ident(measure!.name)})`;
    const name = req.agg === "count" ? "count" : `${AGG_LABEL[req.agg].toLowerCase()} ${measure!.name}`;
    if (group) {
      const dir = req.sort?.order ?? "desc";
      const sql =
        `SELECT ${ident(group.name)}, ${value} AS ${ident(name)} FROM ${from}${where} ` +
        `GROUP BY ${ident(group.name)}${order(ident(name), dir)}${limit}`;
      return {
        ok: true,
        compiled: {
          ...base,
          sql,
          shape: "grouped",
          agg: req.agg,
          group: group.name,
          ...(measure ? { measure: measure.name } : {}),
        },
      };
    }
    const extra = req.agg === "count" ? "" : `, count(${ident(measure!.name)}) AS "values"`;
    const sql = `SELECT ${value} AS ${ident(name)}${extra} FROM ${from}${where}`;
    return {
      ok: true,
      compiled: {
        ...base,
        sql,
        shape: req.agg === "count" ? "count" : "aggregate",
        agg: req.agg,
        ...(measure ? { measure: measure.name } : {}),
      },
    };
  }
  const select =
    shown.length > 0
      ? [
          ...new Set([
            ...(label && !shown.includes(label) ? [label] : []),
            ...shown,
            ...(sortCol ? [sortCol.name] : []),
          ]),
        ]
          .map(ident)
          .join(", ")
      : "*";
  const rowsSql = `SELECT ${select} FROM ${from}${where}${sortCol ? order(ident(sortCol.name), req.sort!.order) : ""}${limit}`;
  if (req.format) {
    const name = path
      .split("/")
      .pop()!
      .replace(/\.[^.]+$/, "");
    const whole = conditions.length === 0 && !sortCol && req.limit === undefined && shown.length === 0;
    const out = output ?? `generated_assets/${whole ? name : slug(`${name} selected rows`)}.${req.format}`;
    const opts = req.format === "json" ? " (FORMAT json, ARRAY true)" : "";
    return {
      ok: true,
      compiled: { ...base, sql: `COPY (${rowsSql}) TO ${text(out)}${opts}`, shape: "copy", output: out },
    };
  }
  return { ok: true, compiled: { ...base, sql: rowsSql, shape: "rows", ...(label ? { label } : {}) } };
}

/** Joins two tables on the column the words name (or the one whose name they share). */
export function compileJoin(req: TransformRequest, left: TableSchema, right: TableSchema): CompileResult {
  const named = (s: TableSchema) => (req.join!.on.length > 0 ? column(req.join!.on, s.columns) : undefined);
  let a = named(left);
  let b = named(right);
  if (!a || !b) {
    const shared = left.columns.find((l) =>
      right.columns.some((r) => stems(r.name).join(" ") === stems(l.name).join(" ")),
    );
    if (req.join!.on.length === 0 && shared) {
      a = shared;
      b = right.columns.find((r) => stems(r.name).join(" ") === stems(shared.name).join(" "));
    }
  }
  if (!a || !b) {
    return {
      ok: false,
      unmapped: req.join!.on.length > 0 ? [req.join!.on.join(" ")] : ["the column to join on"],
      reason: `a column both files share`,
    };
  }
  const leftNames = new Set(left.columns.map((c) => c.name));
  const rightBase = pathTokens(right.path).base.join(" ");
  const rightCols = right.columns
    .filter((c) => c.name !== b.name)
    .map((c) =>
      leftNames.has(c.name) ? `r.${ident(c.name)} AS ${ident(`${c.name} (${rightBase})`)}` : `r.${ident(c.name)}`,
    );
  const sql =
    `SELECT l.*${rightCols.length > 0 ? `, ${rightCols.join(", ")}` : ""} FROM ${table(left.path)} AS l ` +
    `JOIN ${table(right.path)} AS r ON l.${ident(a.name)} = r.${ident(b.name)}`;
  const compiled: Compiled = { sql, shape: "join", file: left.path, conditions: [], group: a.name };
  if (req.format) {
    const out = `generated_assets/${slug(`${pathTokens(left.path).base.join(" ")} with ${rightBase}`)}.${req.format}`;
    const opts = req.format === "json" ? " (FORMAT json, ARRAY true)" : "";
    return {
      ok: true,
      compiled: { ...compiled, sql: `COPY (${sql}) TO ${text(out)}${opts}`, shape: "copy", output: out },
    };
  }
  return { ok: true, compiled };
}
