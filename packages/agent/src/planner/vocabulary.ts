import type { Agg, ChartType } from "./types.js";

/*
 * The planner's vocabulary in one place: every word list and phrase pattern that the intent
 * parser, the intent rules, the matcher and the chart planner read. A new word goes here.
 */

export const TABLE_EXTENSIONS = ["csv", "tsv", "tab", "xlsx", "json", "jsonl", "ndjson"] as const;

export const FILE_EXT =
  "csv|tsv|tab|xlsx|xlsm|xls|ods|json|jsonl|ndjson|md|markdown|txt|text|log|js|mjs|cjs|ts|tsx|jsx|py|r|sql|sh|" +
  "png|jpe?g|gif|svg|webp|pdf|html?|css|ya?ml|toml|xml|ini|cfg|conf|env|ipynb|parquet";

/** Function words: never part of a file or column name. */
export const FUNCTION_WORDS = new Set(
  (
    "a an the of to for from in into on at by per with without and or as is are was were be been being am " +
    "me my our your i we you us it its this that these those there here then than so such " +
    "please can could would will should want need like let lets do does did done have has had " +
    "how what which who whom where when why whats each every all any some other another also just only both " +
    "vs versus against over across up down out"
  ).split(/\s+/),
);

/**
 * The request vocabulary (verbs, chart words, aggregations, rankings): not part of a file name,
 * and part of a column name only when a header is exactly that word ("by make" → Make, "Type").
 */
export const VOCAB_WORDS = new Set(
  (
    "show shows showing display make makes making create creating draw render generate build produce give get " +
    "see look tell explain want " +
    "file files table tables data dataset datasets sheet sheets workbook spreadsheet spreadsheets csv tsv xlsx json " +
    "column columns field fields row rows value values record records entry entries " +
    "chart charts plot plots plotted graph graphs diagram visualize visualise visualization visualisation " +
    "bar bars pie pies donut doughnut line lines scatter scatterplot histogram histograms " +
    "using use used compare compared comparing comparison new " +
    "first last average avg mean total sum count number numbers many much median maximum minimum max min " +
    "one two three four five six seven eight nine ten twenty " +
    "sorted sort order ordered descending ascending log scale logarithmic labels label title " +
    "time times trend trends expensive cheap stacked stack grouped side clustered " +
    "preview describe list find search locate about open read view summarize summarise " +
    "folder folders directory directories mention mentions mentioning containing contain contains named called"
  ).split(/\s+/),
);

/** Ranking words → order and the measure words they imply when no measure is named. */
export const RANK_WORDS: Record<string, { order: "desc" | "asc"; hints: string[] }> = {
  top: { order: "desc", hints: [] },
  bottom: { order: "asc", hints: [] },
  most: { order: "desc", hints: [] },
  least: { order: "asc", hints: [] },
  fewest: { order: "asc", hints: [] },
  highest: { order: "desc", hints: ["elevation", "altitude", "height"] },
  lowest: { order: "asc", hints: ["elevation", "altitude", "height"] },
  largest: { order: "desc", hints: ["diameter", "size", "radius", "area", "volume", "length", "population", "mass"] },
  biggest: { order: "desc", hints: ["diameter", "size", "radius", "area", "volume", "length", "population", "mass"] },
  greatest: { order: "desc", hints: [] },
  smallest: { order: "asc", hints: ["diameter", "size", "radius", "area", "volume", "length", "population", "mass"] },
  tiniest: { order: "asc", hints: ["diameter", "size", "radius", "area", "volume", "length"] },
  heaviest: { order: "desc", hints: ["mass", "weight"] },
  lightest: { order: "asc", hints: ["mass", "weight"] },
  hottest: { order: "desc", hints: ["temperature", "temp"] },
  warmest: { order: "desc", hints: ["temperature", "temp"] },
  coldest: { order: "asc", hints: ["temperature", "temp"] },
  coolest: { order: "asc", hints: ["temperature", "temp"] },
  longest: { order: "desc", hints: ["length", "duration", "period", "distance"] },
  shortest: { order: "asc", hints: ["length", "duration", "period", "distance"] },
  farthest: { order: "desc", hints: ["distance"] },
  furthest: { order: "desc", hints: ["distance"] },
  closest: { order: "asc", hints: ["distance"] },
  nearest: { order: "asc", hints: ["distance"] },
  oldest: { order: "asc", hints: ["founded", "established", "built", "year", "date"] },
  earliest: { order: "asc", hints: ["year", "date", "founded"] },
  newest: { order: "desc", hints: ["founded", "established", "built", "year", "date"] },
  latest: { order: "desc", hints: ["year", "date"] },
  cheapest: { order: "asc", hints: ["price", "cost"] },
  priciest: { order: "desc", hints: ["price", "cost"] },
  richest: { order: "desc", hints: ["income", "revenue", "salary", "wealth"] },
  best: { order: "desc", hints: ["rating", "score"] },
  slowest: { order: "desc", hints: ["latency", "duration", "delay", "elapsed", "time"] },
  fastest: { order: "asc", hints: ["latency", "duration", "delay", "elapsed", "time"] },
  busiest: { order: "desc", hints: [] },
  popular: { order: "desc", hints: ["rating", "views", "visits", "sales"] },
  worst: { order: "asc", hints: ["rating", "score"] },
};

/** Words that never name a file: function words, vocabulary and ranking words. */
export const STOP = new Set([...FUNCTION_WORDS, ...VOCAB_WORDS, ...Object.keys(RANK_WORDS)]);

export const IMPERATIVE = new Set(
  (
    "please can could would will you i we want to like d id lets let us me show make create draw plot give build " +
    "generate render produce display get chart graph visualize visualise do now just"
  ).split(" "),
);

/** Marks a vocabulary word inside a phrase: it names a column only by an exact match (see match.ts). */
export const WEAK = "~";

export const CHART_WORDS: Record<string, ChartType | "any"> = {
  pie: "pie",
  pies: "pie",
  donut: "pie",
  doughnut: "pie",
  bar: "bar",
  bars: "bar",
  barchart: "bar",
  line: "line",
  lines: "line",
  linechart: "line",
  trend: "line",
  trends: "line",
  timeline: "line",
  scatter: "scatter",
  scatterplot: "scatter",
  correlation: "scatter",
  histogram: "histogram",
  histograms: "histogram",
  distribution: "histogram",
  chart: "any",
  charts: "any",
  plot: "any",
  graph: "any",
  diagram: "any",
  visualize: "any",
  visualise: "any",
  visualization: "any",
  visualisation: "any",
  draw: "any",
};

/** Words that suggest a chart type but yield to an explicit one. */
export const SOFT_CHART_WORDS = new Set(["distribution", "trend", "trends", "timeline", "correlation"]);

export const AGG_PATTERNS: [RegExp, Agg][] = [
  [/\b(?:average|avg|mean)\b/, "mean"],
  [/\bmedian\b/, "median"],
  [/\b(?:total|sum|sums|totals|summed)\b/, "sum"],
  [/\b(?:count|counts|number of|how many|# of|frequency|frequencies|tally)\b/, "count"],
  [/\b(?:maximum|max)\b/, "max"],
  [/\b(?:minimum|min)\b/, "min"],
];

export const BY_MARKERS = new Set(["by", "per", "each", "every", "across", "among", "between"]);
export const OVER_MARKERS = new Set(["over", "through", "throughout"]);
export const VS_MARKERS = new Set(["vs", "versus", "against"]);
/** Words that end a phrase inside a segment (so "diameter and mass" gives two phrases). */
export const PHRASE_BREAKS = new Set([
  "and",
  "or",
  "with",
  "of",
  "for",
  "as",
  "in",
  "on",
  "to",
  "from",
  "where",
  "that",
  "whose",
]);
export const TIME_WORDS = new Set([
  "time",
  "year",
  "years",
  "date",
  "dates",
  "month",
  "months",
  "day",
  "days",
  "period",
]);

/** find: type words → globs. */
export const GLOBS: [RegExp, string][] = [
  [/\bcsv\b/, "*.csv"],
  [/\btsv\b/, "*.tsv"],
  [/\b(?:xlsx|excel)\b/, "*.xlsx"],
  [/\bjson\b/, "*.json"],
  [/\b(?:markdown|md)\b/, "*.md"],
  [/\b(?:images?|pictures?|pngs?|photos?)\b/, "*.{png,jpg,jpeg,gif,svg,webp}"],
  [/\b(?:spreadsheets?|tables|datasets?|data files)\b/, `*.{${TABLE_EXTENSIONS.join(",")}}`],
  [/\b(?:javascript|js|scripts?)\b/, "*.{js,mjs,cjs,ts}"],
];

/** Generic synonyms: words that share no letters ("cost" ↔ "price"). */
export const SYNONYM_GROUPS: string[][] = [
  ["price", "cost", "fee"],
  ["salary", "pay", "paid", "wage", "earning", "compensation", "income"],
  ["revenue", "sale", "turnover", "amount"],
  ["expense", "spend", "spending", "cost", "amount", "payment"],
  ["quantity", "qty", "unit", "volume"],
  ["weight", "mass"],
  ["height", "elevation", "altitude"],
  ["temperature", "temp"],
  ["category", "type", "kind", "class", "group"],
  ["country", "nation"],
  ["city", "town"],
  ["location", "place", "site"],
  ["size", "diameter", "radius", "area"],
  ["distance", "range"],
  ["employee", "staff", "people", "person", "worker", "headcount"],
  ["date", "day", "when"],
  ["name", "title", "label"],
  ["win", "won", "victory"],
  ["loss", "lost", "lose", "defeat"],
  ["latency", "delay", "duration", "response"],
];

/** Words that carry no subject in a follow-up ("now as a bar chart instead"). */
export const FOLLOW_UP_FILLER = new Set(
  "now instead again same redo try make turn change switch into thing that it this one ok okay rather".split(" "),
);

/** list: words that mean the workspace itself, and the outputs folder. */
export const ROOT_WORDS = new Set([".", "root", "project", "workspace", "project_root", "here", "everything", "all"]);
export const ASSET_WORDS = new Set(["generated_assets", "generated", "outputs", "output", "assets", "charts"]);

/** Column names that identify rows rather than measure them. */
export const ID_LIKE = /(?:^|[\s_-])(?:id|uuid|code|zip|postcode|phone|index|#)$|^(?:id|#)$/i;

export const AGG_WORD: Record<Agg | "none", string> = {
  none: "",
  sum: "Total",
  mean: "Average",
  median: "Median",
  min: "Minimum",
  max: "Maximum",
  count: "Number of",
};

/** Measures where adding rows up makes no sense, so "X by Y" averages them. */
export const MEAN_LIKE =
  /price|rate|ratio|percent|pct|%|temp|latency|duration|delay|elapsed|response|salary|wage|pay\b|age\b|score|rating|latitude|longitude|elevation|altitude|height|speed|avg|mean|average|median|per\b|density|index|grade|level|duration|distance|diameter|radius|size|weight|mass|period|°|mpg|horsepower|\bhp\b|efficiency|economy|humidity|pressure|length|width|depth/i;
/** Measures that add up: amounts and counts. */
export const ADDITIVE =
  /unit|qty|quantity|count|total|sum|amount|revenue|sales|sold|cost|spend|spent|expense|budget|visit|view|visitor|click|download|order|population|number|\bnum\b|#|volume|death|case|birth|headcount|employee|student|call|session|signup|impression|profit|income|moons?\b|launch|attempt|success|discover/i;

/** Rank words that mean "the top/bottom of the measure" rather than an adjective ("largest"). */
export const GENERIC_RANK: Record<string, string> = {
  top: "top",
  most: "top",
  greatest: "top",
  bottom: "bottom",
  least: "bottom",
  fewest: "bottom",
};

export const TIME_WORD = /^(?:time|times|year|years|month|months|day|days|date|dates|week|weeks|period)$/;
