import { headerTokens, resolvePhrase, termSim, MIN_SIM, type PhraseMatch } from "../match.js";
import { isTimeLike, isYearValues } from "../table.js";
import { stem } from "../text.js";
import type { ChartPlan, ChartType, ColumnProfile, Intent, PlanResult, TableProfile, XKind } from "../types.js";
import { ADDITIVE, ID_LIKE, MEAN_LIKE, RANK_WORDS, TIME_WORD, WEAK } from "../vocabulary.js";

/*
 * What every chart type's planner starts from: the request's phrases resolved to the table's real
 * columns, plus the helpers they share (column roles, readable names). Syntax gives hints ("by X",
 * "over X", "A vs B"), column types decide.
 */

const MIN_PHRASE_SCORE = 0.55;

/** Sum or mean for "X by Y" when the request says neither: by the name, then by the values. */
export function defaultAgg(measures: ColumnProfile[]): "sum" | "mean" {
  const additive = (m: ColumnProfile) =>
    !MEAN_LIKE.test(m.name) && (ADDITIVE.test(m.name) || (m.integer === true && !isYearValues(m)));
  return measures.every(additive) ? "sum" : "mean";
}

export interface Resolved {
  head: PhraseMatch[];
  by: PhraseMatch[];
  over: PhraseMatch[];
  vs: PhraseMatch[];
  color: PhraseMatch[];
  /** Head words that named no column ("missions" in "count of missions per agency"). */
  headRest: string[];
  /** The first phrase of those: the entity counted or ranked ("missions"). */
  entity: string[];
  /** Words of the other phrases (head, by, over, vs) that named nothing. */
  unused: string[];
  /** The request's own words for each head column ("products" for productName). */
  wordsOf: Map<ColumnProfile, string>;
}

export function resolveSegments(intent: Intent, columns: ColumnProfile[]): Resolved {
  const seg = (phrases: string[][]) =>
    phrases.flatMap((p) => resolvePhrase(p, columns)).filter((m) => m.score >= MIN_PHRASE_SCORE);
  const headRest: string[] = [];
  const restPhrases: string[][] = [];
  const wordsOf = new Map<ColumnProfile, string>();
  for (const p of intent.segments.head) {
    const rest: string[] = [];
    const matches = resolvePhrase(p, columns).filter((m) => m.score >= MIN_PHRASE_SCORE);
    const used = new Set<number>();
    for (const m of matches) {
      const tokens = headerTokens(m.column.name).main;
      const own = p.filter((w, i) => {
        const weak = w.startsWith(WEAK);
        const hit =
          !used.has(i) &&
          (weak ? tokens.includes(stem(w.slice(WEAK.length))) : termSim(stem(w), tokens) >= MIN_SIM * 0.7);
        if (hit) used.add(i);
        return hit;
      });
      if (own.length > 0) wordsOf.set(m.column, own.map((w) => w.replace(WEAK, "")).join(" "));
    }
    p.forEach((w, i) => {
      if (!used.has(i) && !w.startsWith(WEAK)) rest.push(w);
    });
    headRest.push(...rest);
    // Phrases of vocabulary only ("stacked bar chart") are no subject.
    if (p.some((w) => !w.startsWith(WEAK))) restPhrases.push(rest);
  }
  // The entity is what the first phrase leaves over ("missions" of "count of missions per agency");
  // leftovers of later phrases ("in the southern hemisphere") were not understood.
  const entity = restPhrases[0] ?? [];
  const unused = restPhrases.slice(1).flat();
  for (const phrases of [intent.segments.by, intent.segments.over, intent.segments.vs, intent.segments.color]) {
    for (const p of phrases) {
      const plain = p.filter((w) => !w.startsWith(WEAK) && !TIME_WORD.test(w));
      if (plain.length > 0 && resolvePhrase(p, columns).filter((m) => m.score >= MIN_PHRASE_SCORE).length === 0)
        unused.push(...plain);
    }
  }
  return {
    head: seg(intent.segments.head),
    by: seg(intent.segments.by),
    over: seg(intent.segments.over),
    vs: seg(intent.segments.vs),
    color: seg(intent.segments.color),
    headRest,
    entity,
    unused,
    wordsOf,
  };
}

export const isNumeric = (c: ColumnProfile) => c.type === "number";
export const isCategory = (c: ColumnProfile) => c.type === "text" || c.type === "boolean" || c.type === "date";

export function bestTimeColumn(columns: ColumnProfile[]): ColumnProfile | undefined {
  const times = columns.filter(isTimeLike);
  return times.find((c) => c.type === "date") ?? times.find((c) => /year|date/i.test(c.name)) ?? times[0];
}

/** The column that names each row (Planet, name, Observatory): text, mostly unique, name-like first. */
export function labelColumn(table: TableProfile, hintWords: string[]): ColumnProfile | undefined {
  const texts = table.columns.filter((c) => c.type === "text" && c.count > 0);
  const unique = texts.filter((c) => c.distinct >= Math.max(1, c.count * 0.9));
  const hinted = hintWords.length > 0 ? resolvePhrase(hintWords, unique)[0]?.column : undefined;
  return hinted ?? unique.find((c) => /\b(?:name|title|label)\b|^name|name$/i.test(c.name)) ?? unique[0] ?? texts[0];
}

export function isIdLike(c: ColumnProfile): boolean {
  return ID_LIKE.test(c.name.trim());
}

export function xKindOf(c: ColumnProfile, type: ChartType): XKind {
  if (c.type === "date") return "temporal";
  if (isYearValues(c)) return "year";
  if (c.type === "number") return type === "line" ? "quantitative" : "ordinal";
  return "nominal";
}

/** "Diameter (km)" → "Diameter", for file names. */
export function bare(name: string): string {
  return name.replace(/\s*[([][^)\]]*[)\]]/g, "").trim() || name;
}

/** "cost_usd_millions" → "cost usd millions", "launchYear" → "launch Year": header names readable in a title. */
export function human(name: string): string {
  return /[_]|[a-z][A-Z]/.test(name)
    ? name
        .replace(/_+/g, " ")
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .trim()
    : name;
}

export function plural(word: string): string {
  if (/s$/i.test(word)) return word;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

export function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The leading nouns of the unmatched head words: "employees work" → "employees". */
export function entityWords(rest: string[]): string | undefined {
  const verbs = new Set([
    "work",
    "works",
    "working",
    "live",
    "lives",
    "living",
    "who",
    "that",
    "are",
    "is",
    "have",
    "has",
    "were",
    "was",
    "did",
    "do",
    "does",
    "which",
    "located",
    "based",
    "there",
    "exist",
    "sold",
    "made",
    "launched",
  ]);
  const out: string[] = [];
  for (const w of rest) {
    if (verbs.has(w)) break;
    out.push(w);
  }
  return out.length > 0 ? out.join(" ") : undefined;
}

export function where(table: TableProfile): string {
  return table.sheet ? `${table.path} (sheet "${table.sheet}")` : table.path;
}

/** One table and request, resolved: the input of each chart type's planner. */
export interface PlanInput {
  intent: Intent;
  table: TableProfile;
  columns: ColumnProfile[];
  r: Resolved;
  /** Columns the request named. */
  mentioned: Set<ColumnProfile>;
  numeric: ColumnProfile[];
  /** How well the request's phrases matched columns so far. */
  fit: number;
  notes: string[];
  base: Pick<ChartPlan, "file" | "sheet" | "logScale" | "notes">;
  /** The measure a ranking word implies ("largest" → Diameter), if the table has one. */
  rankHint: () => ColumnProfile | undefined;
  /** The first numeric column that measures something (not an id, not a time), except those given. */
  firstMeasure: (exclude: ColumnProfile[]) => ColumnProfile | undefined;
}

export function planInput(intent: Intent, table: TableProfile, columns: ColumnProfile[]): PlanInput {
  const r = resolveSegments(intent, columns);
  const notes: string[] = [];
  const all = [...r.head, ...r.by, ...r.over, ...r.vs, ...r.color];
  const mentioned = new Set(all.map((m) => m.column));
  const numeric = columns.filter(isNumeric);
  const fit = all.reduce((a, m) => a + Math.min(m.score, 1.5), 0);

  const rankHint = (): ColumnProfile | undefined => {
    const hints = intent.rank ? (RANK_WORDS[intent.rank.word]?.hints ?? []) : [];
    for (const h of hints) {
      const c = numeric.find((n) => headerTokens(n.name).main.includes(stem(h)));
      if (c) return c;
    }
    return undefined;
  };
  const firstMeasure = (exclude: ColumnProfile[]) =>
    numeric.find((c) => !exclude.includes(c) && !isIdLike(c) && !isTimeLike(c)) ??
    numeric.find((c) => !exclude.includes(c));

  const base = {
    file: table.path,
    ...(table.sheet !== undefined ? { sheet: table.sheet } : {}),
    logScale: false as ChartPlan["logScale"],
    notes,
  };
  return { intent, table, columns, r, mentioned, numeric, fit, notes, base, rankHint, firstMeasure };
}

/** One chart type: how it is planned, drawn and laid out. A new chart type is one such file. */
export interface ChartKind {
  /** The plan for this type, or undefined to hand the request to the grouped (bar) planner. */
  plan(input: PlanInput): PlanResult | undefined;
  /** The Vega-Lite spec without its data. */
  spec(plan: ChartPlan): Record<string, unknown>;
  /** JS that leaves the plotted rows in `data` (default: rows grouped and aggregated per x). */
  data?(plan: ChartPlan): string;
  /** JS helpers the chart code needs. */
  prelude?(plan: ChartPlan): string;
  /** JS run once `spec` holds the data (sizes, labels). */
  layout?(plan: ChartPlan): string;
  /** JS expression for the `data` the code returns (default: the first 25 points). */
  summary?: string;
  /** Return the first, last, lowest and highest points (default true). */
  extremes?: boolean;
}

export type { ChartType, PlanResult, PhraseMatch, XKind };
