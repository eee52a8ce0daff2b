import { RANK_WORDS, WEAK, type Agg, type ChartType, type Intent, type TimeUnit } from "./intent.js";
import { headerTokens, MIN_SIM, pathTokens, resolvePhrase, termSim, type PhraseMatch } from "./match.js";
import { isTimeLike, isYearValues, type ColumnProfile, type TableProfile } from "./table.js";
import { slug, stem, stems } from "./text.js";

/*
 * Chooses what to draw from an intent and a table's real columns: the x/category column, the
 * measure(s), the aggregation, the order and the titles. Syntax gives hints ("by X", "over X",
 * "A vs B"), column types decide: a numeric column named after "by" is a measure ("top 3 planets
 * by diameter", "categories by units sold"), a text or date column is a category.
 */

export type XKind = "nominal" | "ordinal" | "temporal" | "year" | "quantitative";

export interface ChartPlan {
  file: string;
  sheet?: string;
  type: ChartType;
  /** bar/pie/line: the category or x column; scatter: the x column; histogram: the binned column. */
  x?: string;
  /** No grouping at all: one aggregate over every row ("what is the average salary"). */
  overall?: boolean;
  xKind: XKind;
  timeUnit?: TimeUnit;
  /** Numeric columns plotted; empty with agg "count" (rows are counted). */
  measures: string[];
  /** count: only rows where this column has a value are counted. */
  countOf?: string;
  agg: Agg | "none";
  series?: string;
  /** Series stacked (bar charts) instead of side by side. */
  stacked?: boolean;
  /** Keep only rows where this (boolean-like) column is true. */
  filter?: string;
  sort: "x" | "desc" | "asc" | "data";
  limit?: number;
  otherBucket: boolean;
  /** scatter only. */
  y?: string;
  label?: string;
  color?: string;
  /** A log axis for the values; "symlog" when some values are zero or negative (log cannot show them). */
  logScale: false | "log" | "symlog";
  title: string;
  xTitle: string;
  yTitle: string;
  /** Output file name without extension, e.g. "largest-planets-pie". */
  name: string;
  /** One phrase for the final answer: "pie chart of Diameter (km) for the 5 largest planets". */
  summary: string;
  /** The plotted values are years (printed without thousands separators). */
  yearValues?: boolean;
  /** Things the user should know (a guessed measure, several series). */
  notes: string[];
  /** How well the request fits this table (used to choose among candidate tables). */
  fit: number;
}

export type PlanResult = { ok: true; plan: ChartPlan } | { ok: false; reason: string; fit: number };

const MIN_PHRASE_SCORE = 0.55;
const ID_LIKE = /(?:^|[\s_-])(?:id|uuid|code|zip|postcode|phone|index|#)$|^(?:id|#)$/i;

const AGG_WORD: Record<Agg | "none", string> = {
  none: "",
  sum: "Total",
  mean: "Average",
  median: "Median",
  min: "Minimum",
  max: "Maximum",
  count: "Number of",
};

/** Measures where adding rows up makes no sense, so "X by Y" averages them. */
const MEAN_LIKE =
  /price|rate|ratio|percent|pct|%|temp|latency|duration|delay|elapsed|response|salary|wage|pay\b|age\b|score|rating|latitude|longitude|elevation|altitude|height|speed|avg|mean|average|median|per\b|density|index|grade|level|duration|distance|diameter|radius|size|weight|mass|period|°|mpg|horsepower|\bhp\b|efficiency|economy|humidity|pressure|length|width|depth/i;
/** Measures that add up: amounts and counts. */
const ADDITIVE =
  /unit|qty|quantity|count|total|sum|amount|revenue|sales|sold|cost|spend|spent|expense|budget|visit|view|visitor|click|download|order|population|number|\bnum\b|#|volume|death|case|birth|headcount|employee|student|call|session|signup|impression|profit|income|moons?\b|launch|attempt|success|discover/i;

/** Sum or mean for "X by Y" when the request says neither: by the name, then by the values. */
function defaultAgg(measures: ColumnProfile[]): "sum" | "mean" {
  const additive = (m: ColumnProfile) =>
    !MEAN_LIKE.test(m.name) && (ADDITIVE.test(m.name) || (m.integer === true && !isYearValues(m)));
  return measures.every(additive) ? "sum" : "mean";
}

/** Rank words that mean "the top/bottom of the measure" rather than an adjective ("largest"). */
const GENERIC_RANK: Record<string, string> = {
  top: "top",
  most: "top",
  greatest: "top",
  bottom: "bottom",
  least: "bottom",
  fewest: "bottom",
};

interface Resolved {
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

function resolveSegments(intent: Intent, columns: ColumnProfile[]): Resolved {
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

const TIME_WORD = /^(?:time|times|year|years|month|months|day|days|date|dates|week|weeks|period)$/;

const isNumeric = (c: ColumnProfile) => c.type === "number";
const isCategory = (c: ColumnProfile) => c.type === "text" || c.type === "boolean" || c.type === "date";

function bestTimeColumn(columns: ColumnProfile[]): ColumnProfile | undefined {
  const times = columns.filter(isTimeLike);
  return times.find((c) => c.type === "date") ?? times.find((c) => /year|date/i.test(c.name)) ?? times[0];
}

/** The column that names each row (Planet, name, Observatory): text, mostly unique, name-like first. */
function labelColumn(table: TableProfile, hintWords: string[]): ColumnProfile | undefined {
  const texts = table.columns.filter((c) => c.type === "text" && c.count > 0);
  const unique = texts.filter((c) => c.distinct >= Math.max(1, c.count * 0.9));
  const hinted = hintWords.length > 0 ? resolvePhrase(hintWords, unique)[0]?.column : undefined;
  return hinted ?? unique.find((c) => /\b(?:name|title|label)\b|^name|name$/i.test(c.name)) ?? unique[0] ?? texts[0];
}

function isIdLike(c: ColumnProfile): boolean {
  return ID_LIKE.test(c.name.trim());
}

function xKindOf(c: ColumnProfile, type: ChartType): XKind {
  if (c.type === "date") return "temporal";
  if (isYearValues(c)) return "year";
  if (c.type === "number") return type === "line" ? "quantitative" : "ordinal";
  return "nominal";
}

/** "Diameter (km)" → "Diameter", for file names. */
function bare(name: string): string {
  return name.replace(/\s*[([][^)\]]*[)\]]/g, "").trim() || name;
}

/** "cost_usd_millions" → "cost usd millions", "launchYear" → "launch Year": header names readable in a title. */
function human(name: string): string {
  return /[_]|[a-z][A-Z]/.test(name)
    ? name
        .replace(/_+/g, " ")
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .trim()
    : name;
}

function plural(word: string): string {
  if (/s$/i.test(word)) return word;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The leading nouns of the unmatched head words: "employees work" → "employees". */
function entityWords(rest: string[]): string | undefined {
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

function where(table: TableProfile): string {
  return table.sheet ? `${table.path} (sheet "${table.sheet}")` : table.path;
}

/** Builds a chart plan for one table, or says why the request does not fit it. */
export function planChart(intent: Intent, table: TableProfile): PlanResult {
  const columns = table.columns.filter((c) => c.type !== "empty");
  if (columns.length === 0 || table.rows === 0) return { ok: false, reason: `${table.path} has no rows.`, fit: -5 };
  const r = resolveSegments(intent, columns);
  const notes: string[] = [];
  const all = [...r.head, ...r.by, ...r.over, ...r.vs, ...r.color];
  const mentioned = new Set(all.map((m) => m.column));
  const numeric = columns.filter(isNumeric);
  const requested = intent.chartType;
  let fit = all.reduce((a, m) => a + Math.min(m.score, 1.5), 0);

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

  // ---- scatter: two numeric columns
  if (requested === "scatter") {
    const nums = (ms: PhraseMatch[]) => ms.map((m) => m.column).filter(isNumeric);
    let y = nums(r.head)[0];
    let x = [...nums(r.vs), ...nums(r.over), ...nums(r.by), ...nums(r.head)].find((c) => c !== y);
    if (!y) y = firstMeasure(x ? [x] : []);
    if (!x && y) x = firstMeasure([y]);
    if (!x || !y || x === y) return { ok: false, reason: `${where(table)} has fewer than two numeric columns.`, fit };
    if (intent.logScale) base.logScale = [x, y].some((c) => typeof c.min !== "number" || c.min <= 0) ? "symlog" : "log";
    for (const c of [x, y])
      if (!mentioned.has(c)) notes.push(`${c.name} was not named in the request; it was picked as a numeric column.`);
    const colorCol = [...r.color, ...r.by].map((m) => m.column).find((c) => isCategory(c) && c.distinct <= 12);
    const label = labelColumn(table, r.headRest);
    const title = `${human(y.name)} vs ${human(x.name)}`;
    return {
      ok: true,
      plan: {
        ...base,
        type: "scatter",
        x: x.name,
        y: y.name,
        xKind: "quantitative",
        ...(label ? { label: label.name } : {}),
        ...(colorCol ? { color: colorCol.name } : {}),
        measures: [y.name],
        agg: "none",
        sort: "data",
        otherBucket: false,
        title,
        xTitle: x.name,
        yTitle: y.name,
        name: `${slug(`${bare(y.name)} vs ${bare(x.name)}`)}-scatter`,
        summary: `scatter plot of ${y.name} against ${x.name}${label ? ` (one point per ${label.name})` : ""}${colorCol ? `, coloured by ${colorCol.name}` : ""}`,
        fit: fit + 0.5,
      },
    };
  }

  // ---- histogram: one numeric column binned (a "histogram" of a text column becomes counts)
  if (requested === "histogram") {
    const candidates = [...r.head, ...r.by, ...r.over].map((m) => m.column);
    const m = candidates.find(isNumeric) ?? rankHint() ?? (candidates.length === 0 ? firstMeasure([]) : undefined);
    if (m) {
      if (!mentioned.has(m)) notes.push(`No numeric column was named; used ${m.name}.`);
      return {
        ok: true,
        plan: {
          ...base,
          type: "histogram",
          x: m.name,
          xKind: "quantitative",
          measures: [m.name],
          agg: "count",
          sort: "data",
          otherBucket: false,
          title: `Distribution of ${human(m.name)}`,
          xTitle: m.name,
          yTitle: "Count",
          name: `${slug(bare(m.name))}-histogram`,
          summary: `histogram of ${m.name} (up to 20 bins)`,
          fit: fit + (mentioned.has(m) ? 0.5 : 0),
        },
      };
    }
  }

  // ---- bar / pie / line
  let x: ColumnProfile | undefined;
  let series: ColumnProfile | undefined;
  let filter: ColumnProfile | undefined;
  let countOf: ColumnProfile | undefined;
  const measures: ColumnProfile[] = [];
  const addMeasure = (c: ColumnProfile) => {
    if (!measures.includes(c)) measures.push(c);
  };
  const hasGrouping = r.by.length > 0 || r.over.length > 0;

  if (r.over[0]) x = r.over[0].column;
  else if (intent.overTime || intent.timeUnit)
    x = r.by.map((m) => m.column).find(isTimeLike) ?? bestTimeColumn(columns);

  const headHasMeasure = r.head.some((m) => isNumeric(m.column) && !isTimeLike(m.column) && !isIdLike(m.column));
  const headHasCategory = r.head.some((m) => isCategory(m.column));
  for (const { column: c } of r.by) {
    if (c === x) continue;
    // "top 3 planets by diameter", "categories by units sold": a numeric "by" column is the measure.
    const byIsMeasure =
      isNumeric(c) &&
      !isTimeLike(c) &&
      !isIdLike(c) &&
      (intent.rank !== undefined ||
        (!headHasMeasure && intent.agg !== "count" && (headHasCategory || c.distinct > 20)));
    if (byIsMeasure) addMeasure(c);
    else if (!x) x = c;
    else if (!series) series = c;
  }
  const booleanLike = (c: ColumnProfile) =>
    c.type === "boolean" ||
    (c.type === "text" && c.distinct <= 2 && /^(?:yes|no|true|false|y|n)$/i.test(String(c.examples[0] ?? "")));
  for (const { column: c } of r.head) {
    if (c === x || c === series) continue;
    if (booleanLike(c)) {
      // "employees who work remotely per department": a yes/no column named in the head filters.
      const asksForTotal = intent.kind === "rank" && intent.agg !== undefined && !intent.rank;
      if (hasGrouping || x || asksForTotal) filter = c;
      else x = c;
    } else if (isNumeric(c) && !isIdLike(c) && !(isTimeLike(c) && !x && requested !== "pie")) {
      addMeasure(c);
    } else if (!x) {
      x = c;
    } else if (!countOf && (intent.agg === "count" || !headHasMeasure)) {
      countOf = c;
    } else if (!series) {
      series = c;
    }
  }
  for (const { column: c } of r.color) if (c !== x && !series) series = c;
  for (const { column: c } of r.vs) {
    if (isNumeric(c) && !isTimeLike(c)) addMeasure(c);
    else if (!x) x = c;
  }

  let agg: Agg | "none" | undefined;
  if (measures.length === 0) {
    const hinted = rankHint();
    if (hinted && intent.agg !== "count") {
      addMeasure(hinted);
      fit += 0.3;
    } else if (intent.agg === "count" || countOf) {
      agg = "count";
    } else if (x && isTimeLike(x) && requested !== "pie") {
      // A wide table over time ("Year, Transit, Radial velocity, …"): every numeric column is a series.
      const cols = numeric.filter((c) => c !== x && !isTimeLike(c) && !isIdLike(c)).slice(0, 8);
      cols.forEach(addMeasure);
      if (cols.length > 1) notes.push(`Each numeric column is its own series: ${cols.map((c) => c.name).join(", ")}.`);
    } else if (x && x.distinct < x.count && requested !== "line") {
      agg = "count";
    } else if (intent.rank || !x || requested === "line" || intent.agg) {
      const m = firstMeasure(x ? [x] : []);
      if (m) {
        addMeasure(m);
        notes.push(`No measure was named; used ${m.name}.`);
      }
    } else {
      agg = "count";
    }
  }
  if (measures.length === 0 && agg !== "count") agg = "count";
  if (agg === "count") measures.length = 0;

  // "What is the average salary?", "how many planets are there?": one aggregate over all rows
  // (grouping by a column that names each row would give one group per row).
  const overall =
    intent.kind === "rank" &&
    !hasGrouping &&
    intent.agg !== undefined &&
    !intent.rank &&
    (!x || (x.type === "text" && x.distinct >= x.count));
  let overallNoun: string | undefined;
  if (overall) {
    overallNoun = x ? r.wordsOf.get(x) : undefined;
    x = undefined;
    if (agg === "count" || measures.length === 0) agg = "count";
    if (agg === "count") measures.length = 0;
    else measures.length = 1;
  }
  if (!x && !overall) {
    if (intent.overTime || requested === "line") x = bestTimeColumn(columns);
    x ??= labelColumn(table, r.headRest) ?? columns.find(isCategory) ?? bestTimeColumn(columns);
    if (!x)
      return { ok: false, reason: `${where(table)} has no text or date column to use as categories.`, fit: fit - 2 };
  }

  const type: ChartType =
    requested === undefined || requested === "histogram"
      ? x && isTimeLike(x) && x.type !== "text"
        ? "line"
        : "bar"
      : requested;
  if (type === "pie" && measures.length > 1) {
    notes.push(`A pie shows one measure; used ${measures[0]!.name}.`);
    measures.length = 1;
  }
  if (series && measures.length > 1) measures.length = 1;
  const xKind: XKind = x ? xKindOf(x, type) : "nominal";
  const timeUnit = x && x.type === "date" && intent.timeUnit && intent.timeUnit !== "day" ? intent.timeUnit : undefined;
  const unique = !!x && x.distinct >= x.count && !series && !timeUnit;
  if (agg === undefined) {
    if (intent.agg && intent.agg !== "count") agg = intent.agg;
    else if (unique) agg = "none";
    else agg = defaultAgg(measures);
  }

  if (intent.logScale) {
    const lows = measures.map((m) => (typeof m.min === "number" ? m.min : 0));
    base.logScale = agg === "count" || lows.length === 0 || lows.some((v) => v <= 0) ? "symlog" : "log";
  }

  const rank = intent.rank;
  const timeAxis = xKind === "temporal" || xKind === "year" || (xKind === "quantitative" && type === "line");
  let sort: ChartPlan["sort"] = timeAxis || xKind === "ordinal" ? "x" : type === "line" ? "data" : "desc";
  let limit: number | undefined;
  if (rank && !(timeAxis && GENERIC_RANK[rank.word] && rank.n === undefined)) {
    sort = rank.order;
    limit = rank.n ?? (type === "pie" || intent.kind === "rank" ? 5 : 10);
  }

  // ---- titles and names
  const entity = entityWords(r.entity);
  const countNoun =
    entity ?? plural(countOf ? (r.wordsOf.get(countOf) ?? countOf.name.toLowerCase()) : (overallNoun ?? "rows"));
  const filterNote = filter ? ` (${filter.name} only)` : "";
  const measureName = measures[0]?.name;
  const yTitle =
    agg === "count"
      ? `Number of ${countNoun}${filterNote}`
      : measures.length > 1
        ? "Value"
        : `${AGG_WORD[agg] ? `${AGG_WORD[agg]} ` : ""}${measureName!}${filterNote}`;
  const xWord = x ? (timeUnit ?? human(x.name)) : "";
  let title: string;
  let name: string;
  if (overall) {
    title = yTitle;
    name = slug(bare(yTitle));
  } else if (rank && limit !== undefined) {
    const noun = plural(entity ?? (x && r.wordsOf.get(x)) ?? bare(human(x!.name)).toLowerCase());
    const generic = GENERIC_RANK[rank.word];
    const what = generic ? `${capital(generic)} ${limit}` : `${limit} ${rank.word}`;
    title = `${what} ${noun} by ${agg === "count" ? "count" : agg === "none" ? human(measureName!) : human(yTitle).toLowerCase()}`;
    name = `${slug(`${generic ?? rank.word} ${noun}`)}-${type}`;
  } else if (measures.length > 1) {
    const what = entity ?? measures.map((m) => bare(human(m.name))).join(", ");
    title = `${capital(what)} by ${xWord}`;
    name = `${slug(`${entity ?? measures.map((m) => bare(m.name)).join(" ")} by ${bare(xWord)}`)}-${type}`;
  } else {
    const join = type === "line" && timeAxis ? "over" : "by";
    title = `${capital(human(yTitle))} ${join} ${xWord}${series ? ` and ${human(series.name)}` : ""}`;
    name = `${slug(`${bare(yTitle).replace(/^Number of/, "count")} ${join} ${bare(xWord)}${series ? ` and ${bare(series.name)}` : ""}`)}-${type}`;
  }
  if (name.length > 70) name = `${name.slice(0, 60).replace(/-[^-]*$/, "")}-${type}`;

  const typeWord = type === "bar" ? "bar chart" : type === "pie" ? "pie chart" : "line chart";
  const of =
    agg === "count"
      ? `the number of ${countNoun}${filterNote}`
      : measures.length > 1
        ? measures.map((m) => m.name).join(", ")
        : yTitle;
  const groupPhrase =
    rank && limit !== undefined
      ? `for the ${limit} ${GENERIC_RANK[rank.word] ?? rank.word} ${plural(entity ?? (x && r.wordsOf.get(x)) ?? bare(x!.name).toLowerCase())}`
      : x
        ? `${type === "line" && timeAxis ? "over" : "by"} ${timeUnit ? `${timeUnit} of ${x.name}` : x.name}`
        : `over all ${table.rows} rows`;
  const summary = `${typeWord} of ${of} ${groupPhrase}${series ? ` and ${series.name}` : ""}`;

  // Say what was not understood rather than silently answer a different question.
  const fileTokens = [
    ...pathTokens(table.path).base,
    ...pathTokens(table.path).dirs,
    ...(table.sheet ? stems(table.sheet) : []),
  ];
  const autoSeries = measures.length > 1 && !measures.some((m) => mentioned.has(m));
  const unusedWords = autoSeries ? r.unused.filter((w) => !intent.segments.by.flat().includes(w)) : r.unused;
  const ignored = unusedWords.filter(
    (w) => termSim(stem(w), fileTokens) < MIN_SIM && !(entity ?? "").split(" ").includes(w),
  );
  if (ignored.length > 0)
    notes.push(`Not used from the request (no matching column): "${[...new Set(ignored)].join(" ")}".`);

  if (x && mentioned.has(x)) fit += 0.2;
  if (measures.some((m) => mentioned.has(m))) fit += 0.5;
  else if (agg === "count" && (countOf || entity)) fit += 0.2;

  return {
    ok: true,
    plan: {
      ...base,
      type,
      ...(x ? { x: x.name } : {}),
      ...(overall ? { overall } : {}),
      xKind,
      ...(timeUnit ? { timeUnit } : {}),
      measures: measures.map((m) => m.name),
      ...(countOf ? { countOf: countOf.name } : {}),
      ...(agg !== "count" && measures.length === 1 && isYearValues(measures[0]!) ? { yearValues: true } : {}),
      agg,
      ...(series ? { series: series.name } : {}),
      ...(intent.stacked ? { stacked: true } : {}),
      ...(filter ? { filter: filter.name } : {}),
      sort,
      ...(limit !== undefined ? { limit } : {}),
      otherBucket: type === "pie" && limit === undefined && !!x && x.distinct > 10,
      title,
      xTitle: timeUnit && x ? `${capital(timeUnit)} (${x.name})` : (x?.name ?? ""),
      yTitle,
      name,
      summary,
      fit,
    },
  };
}
