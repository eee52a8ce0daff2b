import { smallNumber, stem, words } from "../text.js";
import type { ChartType, Intent, Rank, Segments, TimeUnit, Agg } from "../types.js";
import {
  AGG_PATTERNS,
  BY_MARKERS,
  CHART_WORDS,
  FILE_EXT,
  FUNCTION_WORDS,
  GLOBS,
  IMPERATIVE,
  OVER_MARKERS,
  PHRASE_BREAKS,
  RANK_WORDS,
  SOFT_CHART_WORDS,
  STOP,
  TIME_WORDS,
  VS_MARKERS,
  WEAK,
} from "../vocabulary.js";
import { classify } from "./rules.js";

/*
 * Request → intent, with no knowledge of the workspace. The parser only recognises structure
 * (verbs, chart words, "by/per/over/vs", "top N", aggregations, file and sheet references) and
 * leaves every content word for the matcher to compare with real file and column names later.
 * Which kind of request it is comes from the ordered rule table in rules.ts.
 */

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
  intent.kind = classify({ intent, full: fullLower, lower, chartWord, quoted });
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
