import { smallNumber, stem, words } from "./text.js";

/*
 * Request → intent, with no knowledge of the workspace. The parser only recognises structure
 * (verbs, chart words, "by/per/over/vs", "top N", aggregations, file and sheet references) and
 * leaves every content word for the matcher to compare with real file and column names later.
 */

export type IntentKind = "chart" | "rank" | "describe" | "preview" | "list" | "find" | "help" | "unknown";
export type ChartType = "bar" | "pie" | "line" | "scatter" | "histogram";
export type Agg = "sum" | "mean" | "count" | "min" | "max" | "median";
export type TimeUnit = "year" | "month" | "day";

/** Phrases (lists of words) found in each syntactic slot of a chart request. */
export interface Segments {
  /** What to measure or show: "chart of <head>", "average <head>". */
  head: string[][];
  /** Grouping / category: "by <x>", "per <x>", "for each <x>". */
  by: string[][];
  /** The x axis of a trend: "over <x>". */
  over: string[][];
  /** The other axis of a comparison: "<a> vs <b>". */
  vs: string[][];
  /** Series colour: "colored by <x>", "split by <x>". */
  color: string[][];
}

export interface Rank {
  order: "desc" | "asc";
  n?: number;
  /** The ranking word ("largest"), used to guess a measure when none is named. */
  word: string;
}

export interface Intent {
  kind: IntentKind;
  text: string;
  chartType?: ChartType;
  agg?: Agg;
  rank?: Rank;
  /** Rows or lines asked for by a preview ("first 20 rows"). */
  limit?: number;
  /** A file name or path written in the request ("planets.xlsx", "notes/ideas.md"). */
  explicitFile?: string;
  /** A folder path written in the request ("data/moons"). */
  explicitDir?: string;
  /** Words that describe the file ("the q1 orders", "the sales file"). */
  fileWords: string[];
  /** A sheet name phrase ("the Dwarf planets sheet"). */
  sheet?: string;
  segments: Segments;
  /** "over time", "trend", "over the years": the x axis is the table's time column. */
  overTime: boolean;
  timeUnit?: TimeUnit;
  /** Every content word (stemmed), for scoring file names and columns. */
  terms: string[];
  /** list: the folder words ("in data", "the reports folder"). */
  folderWords: string[];
  /** find: what to look for. */
  find?: { name?: string; content?: string; glob?: string };
  /** open/show: also ask the IDE to open the file. */
  openInIde: boolean;
  logScale: boolean;
  /** "stacked bar chart": series stacked rather than side by side. */
  stacked: boolean;
}

const TABLE_EXT = ["csv", "tsv", "tab", "xlsx", "json", "jsonl", "ndjson"];
const FILE_EXT =
  "csv|tsv|tab|xlsx|xlsm|xls|ods|json|jsonl|ndjson|md|markdown|txt|text|log|js|mjs|cjs|ts|tsx|jsx|py|r|sql|sh|" +
  "png|jpe?g|gif|svg|webp|pdf|html?|css|ya?ml|toml|xml|ini|cfg|conf|env|ipynb|parquet";
/**
 * A file name or path: a known extension, or any alphabetic extension of 2-8 letters on a name of
 * 2+ characters ("secret-plans.docx"); "e.g." and "vs." are not names.
 */
const FILE_RE = new RegExp(
  `(?:^|[\\s"'\`(\\[])((?:[\\w@.~-]+\\/)*[\\w@~-][\\w@.~-]*?\\.(?:${FILE_EXT})|(?:[\\w@.~-]+\\/)*[\\w@~-][\\w@~-]+\\.[a-z][a-z0-9]{1,7})(?=$|[\\s"'\`),;:!?\\]]|\\.(?:\\s|$))`,
  "i",
);
const QUOTED_FILE_RE = /^[^/]+(?:\/[^/]+)*\.[a-z][a-z0-9]{1,7}$/i;
/** One word of a name phrase that is not a preposition (so "of X from Y sheet" captures only Y). */
const PHRASE = "(?:(?!\\b(?:from|in|on|of|using|use|by|per|over|for|as|with|and)\\b)[\\p{L}\\p{N} _-])";

/** Function words: never part of a file or column name. */
const FUNCTION_WORDS = new Set(
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
const VOCAB_WORDS = new Set(
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
const STOP = new Set([...FUNCTION_WORDS, ...VOCAB_WORDS, ...Object.keys(RANK_WORDS)]);

const IMPERATIVE = new Set(
  (
    "please can could would will you i we want to like d id lets let us me show make create draw plot give build " +
    "generate render produce display get chart graph visualize visualise do now just"
  ).split(" "),
);

/** Marks a vocabulary word inside a phrase: it names a column only by an exact match (see match.ts). */
export const WEAK = "~";

const CHART_WORDS: Record<string, ChartType | "any"> = {
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
const SOFT_CHART_WORDS = new Set(["distribution", "trend", "trends", "timeline", "correlation"]);

const AGG_PATTERNS: [RegExp, Agg][] = [
  [/\b(?:average|avg|mean)\b/, "mean"],
  [/\bmedian\b/, "median"],
  [/\b(?:total|sum|sums|totals|summed)\b/, "sum"],
  [/\b(?:count|counts|number of|how many|# of|frequency|frequencies|tally)\b/, "count"],
  [/\b(?:maximum|max)\b/, "max"],
  [/\b(?:minimum|min)\b/, "min"],
];

const BY_MARKERS = new Set(["by", "per", "each", "every", "across", "among", "between"]);
const OVER_MARKERS = new Set(["over", "through", "throughout"]);
const VS_MARKERS = new Set(["vs", "versus", "against"]);
/** Words that end a phrase inside a segment (so "diameter and mass" gives two phrases). */
const PHRASE_BREAKS = new Set([
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
const TIME_WORDS = new Set(["time", "year", "years", "date", "dates", "month", "months", "day", "days", "period"]);

/** Parses a chat request. Never throws; unknown requests get kind "unknown". */
export function parseIntent(raw: string): Intent {
  const text = raw.trim().replace(/\s+/g, " ").replace(/[’‘]/g, "'");
  let rest = ` ${text} `;

  const quoted = [...text.matchAll(/["“'`‘]([^"”'`’]{1,200})["”'`’]/g)].map((m) => m[1]!.trim());

  let explicitFile: string | undefined;
  // A quoted name may contain spaces ("Budget FY2025.xlsx"); an unquoted one may not.
  const quotedFile = quoted.find((q) => QUOTED_FILE_RE.test(q));
  const fileMatch = quotedFile === undefined ? FILE_RE.exec(rest) : undefined;
  if (quotedFile !== undefined) {
    explicitFile = quotedFile.replace(/^\.\//, "");
    rest = rest.replace(quotedFile, " ");
  } else if (fileMatch) {
    explicitFile = fileMatch[1]!.replace(/^\.\//, "");
    rest = rest.replace(fileMatch[1]!, " ");
  }

  let sheet: string | undefined;
  const sheetRe = [
    new RegExp(
      `\\b(?:from|in|on|of|using|use)\\s+(?:the\\s+)?["'“]?(${PHRASE}{1,40}?)["'”]?\\s+(?:sheet|tab|worksheet)\\b`,
      "iu",
    ),
    new RegExp(`\\bthe\\s+["'“]?(${PHRASE}{1,40}?)["'”]?\\s+(?:sheet|tab|worksheet)\\b`, "iu"),
    /\b(?:sheet|tab|worksheet)\s+(?:named\s+|called\s+)?["'“]([^"'”]{1,40})["'”]/iu,
    /\b(?:sheet|tab|worksheet)\s+(?:named\s+|called\s+)?([\p{L}\p{N}_-]+(?:\s+[\p{L}\p{N}_-]+)?)\s*[?!.]?\s*$/iu,
  ];
  for (const re of sheetRe) {
    const m = re.exec(rest);
    if (m) {
      sheet = m[1]!.trim();
      rest = rest.replace(m[0], " ");
      break;
    }
  }

  // "from the q1 orders", "in the sales file", "the orders table": words that describe the file, not a column.
  const fileWords: string[] = [];
  const filePhrase =
    new RegExp(
      `\\b(?:from|in|of|using|use|the|my|our|this)\\s+(?:the\\s+|my\\s+|our\\s+|this\\s+)?(${PHRASE}{1,60}?)\\s+(?:file|table|spreadsheet|workbook|dataset|data\\s?set|csv|tsv|json|xlsx|excel)\\b`,
      "iu",
    ).exec(rest) ??
    new RegExp(
      `\\bfrom\\s+(?:the\\s+|my\\s+|our\\s+)?(${PHRASE}{1,60}?)(?=\\s*$|\\s*[,.;!?]|\\s+(?:as|by|per|over|with|for|vs|using|sorted|showing|and|in|on)\\b)`,
      "iu",
    ).exec(rest);
  if (filePhrase && filePhrase[1]!.trim() !== "" && !/^\d[\d\s-]*$/.test(filePhrase[1]!.trim())) {
    fileWords.push(...words(filePhrase[1]!).filter((w) => !STOP.has(w)));
    rest = rest.replace(filePhrase[0], " ");
  }

  const lower = rest.toLowerCase();
  const all = words(lower.replace(/\bvs\./g, "vs"));
  const fullLower = text.toLowerCase();

  // ---- chart type: an explicit one ("bar") beats a hint ("the salary distribution", "the trend")
  let chartType: ChartType | undefined;
  let hinted: ChartType | undefined;
  let chartWord = false;
  for (const w of all) {
    const t = CHART_WORDS[w];
    if (t === undefined) continue;
    chartWord = true;
    if (t === "any") continue;
    if (SOFT_CHART_WORDS.has(w)) hinted ??= t;
    else chartType ??= t;
  }
  chartType ??= hinted;
  if (/\bcolumn (?:chart|graph|plot)\b/.test(fullLower)) chartType ??= "bar";
  if (/\bxy\b|\bx\/y\b/.test(fullLower)) chartType ??= "scatter";

  // ---- aggregation
  let agg: Agg | undefined;
  for (const [re, a] of AGG_PATTERNS) {
    if (re.test(lower)) {
      agg = a;
      break;
    }
  }

  // ---- ranking and N ("top 3 smallest": the order comes from the most specific word)
  let rank: Rank | undefined;
  const pricey = /\b(most|least) expensive\b/.exec(lower);
  if (pricey) rank = { order: pricey[1] === "most" ? "desc" : "asc", word: "priciest" };
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    const r = RANK_WORDS[w];
    if (!r || (pricey && (w === "most" || w === "least"))) continue;
    if (rank === undefined || rank.word === "top" || rank.word === "bottom") {
      rank = { order: r.order, word: w, ...(rank?.n !== undefined ? { n: rank.n } : {}) };
    }
    const n = smallNumber(all[i + 1]) ?? smallNumber(all[i - 1]) ?? smallNumber(all[i + 2]);
    if (n !== undefined && rank.n === undefined) rank.n = n;
  }

  // ---- preview limit ("first 20 rows", "20 lines")
  let limit: number | undefined;
  const lim = /\b(?:first|top|last)?\s*(\d{1,4})\s+(?:rows|lines|records|entries)\b/.exec(lower);
  if (lim) limit = Number(lim[1]);

  // ---- time axis
  const overTime =
    /\bover (?:the )?(?:time|years|months|days|period)\b|\bover time\b|\btrend|\bthrough the years|\bper (?:year|month|day)\b|\b(?:by|each) (?:year|month|day)\b|\b(?:yearly|monthly|daily|annual)\b|\bover the years\b|\btime ?series\b|\btimeline\b/.test(
      lower,
    );
  let timeUnit: TimeUnit | undefined;
  if (/\b(?:per|by|each|every|over the) month|\bmonthly\b/.test(lower)) timeUnit = "month";
  else if (/\b(?:per|by|each|every) year\b|\byearly\b|\bannual/.test(lower)) timeUnit = "year";
  else if (/\b(?:per|by|each|every) day\b|\bdaily\b/.test(lower)) timeUnit = "day";

  // The leading imperative ("make me", "can you show") is not about the data: "make" may be a column.
  let lead = 0;
  while (lead < all.length - 1 && IMPERATIVE.has(all[lead]!)) lead++;
  const segments = segment(all.slice(lead));
  // Sheet words count for finding the file too ("the dwarf planets sheet" → planets.xlsx).
  const sheetWords = sheet ? words(sheet).filter((w) => !STOP.has(w)) : [];
  const terms = [
    ...new Set([...all.filter((w) => !STOP.has(w) && !/^\d+$/.test(w)), ...fileWords, ...sheetWords].map(stem)),
  ];
  const folderWords = folderPhrase(lower);

  const intent: Intent = {
    kind: "unknown",
    text,
    ...(chartType ? { chartType } : {}),
    ...(agg ? { agg } : {}),
    ...(rank ? { rank } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(explicitFile ? { explicitFile } : {}),
    fileWords,
    ...(sheet ? { sheet } : {}),
    segments,
    overTime,
    ...(timeUnit ? { timeUnit } : {}),
    terms,
    folderWords,
    openInIde: /^\s*(?:please\s+)?(?:open|show|view|display)\b/i.test(text) || /\bopen\b/i.test(text),
    logScale: /\blogarithmic\b|\blog[- ]log\b|\blog[- ]?(?:scale|scaled|axis|axes)\b|\bon a log\b|\blog [xy]\b/i.test(
      text,
    ),
    stacked: /\bstack(?:ed|ing)?\b/i.test(text),
  };
  intent.kind = classify(intent, fullLower, lower, chartWord, quoted);
  if (intent.kind === "find") intent.find = findTarget(text, fullLower, quoted);
  if (intent.kind === "list" && !explicitFile) {
    const dir = text.split(/\s+/).find((t) => /^[\w@.~-]+(?:\/[\w@.~-]*)+$/.test(t.replace(/[?!.,;:]+$/, "")));
    if (dir)
      intent.explicitDir = dir
        .replace(/[?!.,;:]+$/, "")
        .replace(/^\.\//, "")
        .replace(/\/$/, "");
  }
  return intent;
}

/** Splits the words after the request verb into head / by / over / vs / color phrases. */
function segment(all: string[]): Segments {
  const segs: Segments = { head: [], by: [], over: [], vs: [], color: [] };
  let slot: keyof Segments = "head";
  let phrase: string[] = [];
  const flush = () => {
    const content = phrase
      .filter((w) => !FUNCTION_WORDS.has(w) && !/^\d{1,3}$/.test(w))
      .map((w) => (STOP.has(w) && !TIME_WORDS.has(w) ? `${WEAK}${w}` : w));
    if (content.length > 0) segs[slot].push(content);
    phrase = [];
  };
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    const next = all[i + 1];
    if ((w === "colored" || w === "coloured" || w === "color" || w === "colour" || w === "split") && next === "by") {
      flush();
      slot = "color";
      i++;
      continue;
    }
    if (
      (w === "grouped" || w === "broken" || w === "group" || w === "breakdown") &&
      (next === "by" || next === "down")
    ) {
      flush();
      slot = "by";
      i += next === "down" && all[i + 2] === "by" ? 2 : 1;
      continue;
    }
    if (w === "for" && (next === "each" || next === "every")) {
      flush();
      slot = "by";
      i++;
      continue;
    }
    if (w === "compared" && (next === "to" || next === "with")) {
      flush();
      slot = "vs";
      i++;
      continue;
    }
    if (BY_MARKERS.has(w)) {
      flush();
      // "top 3 planets by diameter": after a rank word "by" names the measure, which the
      // planner sorts out by column type; the slot stays "by".
      slot = "by";
      continue;
    }
    if (OVER_MARKERS.has(w)) {
      flush();
      slot = "over";
      continue;
    }
    if (VS_MARKERS.has(w)) {
      flush();
      slot = "vs";
      continue;
    }
    if (PHRASE_BREAKS.has(w)) {
      flush();
      continue;
    }
    phrase.push(w);
  }
  flush();
  return segs;
}

/** "in data", "in the reports folder", "the data/moons directory", "folder notes" → its words. */
function folderPhrase(lower: string): string[] {
  const m =
    /\b(?:in|inside|under|within|of)\s+(?:the\s+)?(?:folder|directory|dir)\s+["']?([\w./ -]{1,60}?)["']?(?=$|\s*[?!.,;]|\s+(?:folder|directory|dir)\b)/.exec(
      lower,
    ) ??
    /\b(?:in|inside|under|within|of)\s+(?:the\s+|my\s+)?["']?([\w./ -]{1,60}?)["']?\s+(?:folder|directory|dir)\b/.exec(
      lower,
    ) ??
    /\b(?:folder|directory|dir)\s+["']?([\w./-]{1,60})["']?/.exec(lower) ??
    /\b(?:in|inside|under|within)\s+(?:the\s+|my\s+)?["']?([\w./-]{1,60})["']?\s*[?!.]?\s*$/.exec(lower);
  if (!m) return [];
  return m[1]!
    .trim()
    .split(/\s+/)
    .filter((w) => w && !["the", "my", "this", "project", "workspace", "root", "folder", "directory"].includes(w));
}

function classify(intent: Intent, full: string, lower: string, chartWord: boolean, quoted: string[]): IntentKind {
  if (full.trim() === "" || /^(?:hi|hello|hey|help|\?|thanks?|thank you)\b[\s!.?]*$/.test(full.trim())) return "help";
  if (/\bwhat can you do\b|\bhow do (?:i|you) use\b|\bwhat do you (?:do|support)\b|\bwho are you\b/.test(full)) {
    return "help";
  }
  const hasBy = intent.segments.by.length > 0 || intent.segments.over.length > 0 || intent.segments.vs.length > 0;
  const listVerb =
    /\b(?:list|ls|tree)\b|\bwhat(?:'s| is| files are)? in (?:the )?(?:folder|directory|dir)\b|\bwhat(?:'s| is| files are)? in (?:the )?[\w./-]+ (?:folder|directory|dir)\b|\bwhat(?:'s| is) in [\w./-]+\/?\s*\??$|\b(?:folder|directory) (?:structure|tree|contents?)\b|\bcontents? of (?:the )?(?:folder|directory|dir)\b|\bproject (?:structure|layout)\b|\b(?:show|give|tell) (?:me )?(?:all )?(?:the )?files\b|\bwhat files\b|\bwhich files are (?:in|there)\b/.test(
      full,
    );
  const findVerb =
    /\b(?:find|search|locate|look for|looking for|where (?:is|are|can i find)|which files?|any files?|files? (?:named|called|containing|that (?:contain|mention)|mentioning|about|with))\b/.test(
      full,
    );
  const describeVerb =
    /\b(?:describe|description|summari[sz]e|summary|statistics|stats|schema|profile|columns?|fields|headers|data ?types?|what(?:'s| is) (?:in|inside) (?:the )?(?:table|dataset|spreadsheet))\b/.test(
      full,
    );
  const previewVerb =
    /\b(?:open|show|read|preview|view|display|print|cat|head|look at|peek|see|contents? of|what(?:'s| is) in(?:side)?)\b/.test(
      full,
    );

  if (chartWord || intent.chartType || /\bcompar(?:e|es|ing|ison)\b/.test(full)) return "chart";
  // "attempts vs. successes": two things set against each other.
  if (intent.segments.vs.length > 0 && intent.segments.head.length > 0 && !findVerb) return "chart";
  // "average salary by department", "count of missions per agency": a chart by default.
  if (intent.agg && hasBy && !findVerb) return "chart";
  if (listVerb && !intent.explicitFile) {
    const extWord =
      /\b(?:csv|tsv|xlsx|json|markdown|md|images?|pictures?|spreadsheets?|excel|javascript|scripts?|pngs?|notes)\b/.test(
        lower,
      );
    return extWord && intent.folderWords.length === 0 ? "find" : "list";
  }
  if (findVerb) return "find";
  if (/^\s*(?:which|what)\b/.test(full) && intent.rank && !describeVerb) return "rank";
  if (describeVerb && !/\bopen\b/.test(full)) return "describe";
  // "requests per status code", "show points by team": a measure or thing split by a column.
  if (
    hasBy &&
    intent.segments.head.some((p) => p.some((w) => !w.startsWith(WEAK))) &&
    !/\b(?:open|read|preview|cat|head)\b/.test(full)
  ) {
    return "chart";
  }
  // "what is the total amount in transactions.jsonl?": a number computed from a table.
  if (intent.agg && intent.terms.length > 0 && /^\s*(?:what|which|how)\b/.test(full)) return "rank";
  // "planets with the most moons": a ranking without a verb.
  if (intent.rank && intent.terms.length > 0 && !previewVerb) return "rank";
  // "how did successes change over the years", "monthly spending": a trend is a line chart.
  if (intent.overTime && intent.terms.length > 0 && !previewVerb) return "chart";
  if (previewVerb && (intent.explicitFile || intent.terms.length > 0 || quoted.length > 0)) return "preview";
  if (intent.explicitFile) return "preview";
  return "unknown";
}

const GLOBS: [RegExp, string][] = [
  [/\bcsv\b/, "*.csv"],
  [/\btsv\b/, "*.tsv"],
  [/\b(?:xlsx|excel)\b/, "*.xlsx"],
  [/\bjson\b/, "*.json"],
  [/\b(?:markdown|md)\b/, "*.md"],
  [/\b(?:images?|pictures?|pngs?|photos?)\b/, "*.{png,jpg,jpeg,gif,svg,webp}"],
  [/\b(?:spreadsheets?|tables|datasets?|data files)\b/, `*.{${TABLE_EXT.join(",")}}`],
  [/\b(?:javascript|js|scripts?)\b/, "*.{js,mjs,cjs,ts}"],
];

/** find: a content phrase ("containing X"), a name ("named X", "about X") or a glob ("csv files"). */
function findTarget(text: string, full: string, quoted: string[]): NonNullable<Intent["find"]> {
  const content =
    /\b(?:containing|contain|contains|that mention|mentioning|mention|mentions|with the (?:text|word)|with text|that say|saying)\s+["“'`]?([^"”'`?]{1,80}?)["”'`]?\s*[?!.]?\s*$/i.exec(
      text,
    );
  if (content) return { content: content[1]!.trim() };
  const named = /\b(?:named|called|with (?:the )?name)\s+["“'`]?([^"”'`\s?]{1,80})["”'`]?/i.exec(text);
  if (named) return { name: named[1]!.trim() };
  if (quoted.length > 0) return { name: quoted[0]! };
  const glob = GLOBS.find(([re]) => re.test(full))?.[1];
  const about =
    /\b(?:about|on|regarding|related to|for|with|where is|where are|locate|find|search for|search|look for)\s+(?:the\s+|a\s+|an\s+|any\s+|all\s+)?(?:files?\s+(?:about|on|for|named|called)\s+)?([\p{L}\p{N} _.-]{1,60}?)\s*(?:files?|data|documents?)?\s*[?!.]?\s*$/iu.exec(
      text,
    );
  const phrase = about?.[1] ?? text;
  const typeWords =
    /^(?:csv|tsv|xlsx|excel|json|markdown|md|images?|pictures?|pngs?|photos?|spreadsheets?|datasets?|javascript|js|scripts?)$/;
  const content2 = words(phrase).filter(
    (w) => !STOP.has(w) && !typeWords.test(w) && !["find", "search", "locate", "about", "files"].includes(w),
  );
  // "find the planets spreadsheet": a name, kept to the type's extensions; "find csv files": the type alone.
  if (content2.length === 0 && glob) return { glob };
  return { name: content2.join(" "), ...(glob ? { glob } : {}) };
}
