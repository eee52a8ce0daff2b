import { pathTokens, MIN_SIM, termSim } from "../match.js";
import { isTimeLike, isYearValues } from "../table.js";
import { slug, stem, stems } from "../text.js";
import type { Agg, ChartPlan, ChartType, ColumnProfile } from "../types.js";
import { AGG_WORD, GENERIC_RANK } from "../vocabulary.js";
import {
  bare,
  bestTimeColumn,
  capital,
  defaultAgg,
  entityWords,
  human,
  isCategory,
  isIdLike,
  isNumeric,
  labelColumn,
  plural,
  where,
  xKindOf,
  type PlanInput,
  type PlanResult,
  type XKind,
} from "./resolve.js";

/*
 * Bar, pie and line charts share one planner: a category or time column on x, one or more
 * measures (or a row count) aggregated per x value, an order and a limit. Each type's own file
 * (bar.ts, pie.ts, line.ts) draws it.
 */

export function planGrouped(input: PlanInput): PlanResult {
  const { intent, table, columns, r, mentioned, numeric, notes, base, rankHint, firstMeasure } = input;
  const requested = intent.chartType;
  let fit = input.fit;
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
  const ignoredWords = [...new Set(ignored)];

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
      ...(ignoredWords.length > 0 ? { ignored: ignoredWords } : {}),
    },
  };
}
