import { smallNumber, words } from "../text.js";
import type { Agg, ChartType, Intent } from "../types.js";
import { STOP } from "../vocabulary.js";

/*
 * A transform request's structure, with no knowledge of the files: which aggregate, which
 * comparisons ("more than 10 moons", "mpg over 30"), grouping, order and limit, distinct values,
 * a join, an export format. Every content word that no slot took stays in `words`: the compiler
 * must map each of them to a file, a column or a value, or say it could not.
 */

export type CompareOp = ">" | ">=" | "<" | "<=" | "=";

export interface Comparison {
  op: CompareOp;
  value: number;
  /** Words after the number ("more than 10 moons") and before the comparison ("mpg over 30"). */
  after: string[];
  before: string[];
}

export interface TransformRequest {
  agg?: Agg;
  /** Words naming the aggregated column ("average diameter"). */
  measure: string[];
  /** Words naming the grouping column ("per agency"). */
  groupBy: string[];
  comparisons: Comparison[];
  sort?: { words: string[]; order: "asc" | "desc" };
  limit?: number;
  /** "distinct targets", "unique agencies": the column's words. */
  distinct?: string[];
  /** Two files joined; on the column these words name (or the one they share). */
  join?: { files: [string, string]; on: string[] };
  /** Convert or save the result as a file of this format. */
  format?: "csv" | "json" | "parquet";
  chart?: ChartType;
  /** Files named in the request. */
  files: string[];
  /** Content words no slot took: entity ("missions"), values ("mars"), or words that mean nothing here. */
  words: string[];
}

/** Words that carry no meaning for a query once the slots are read. */
const FILLER = new Set(
  (
    "went go goes going gone send sends sent visited visit have has had are is were was there exist exists " +
    "rows row entries entry records record ones where whose having that which who whom " +
    "convert converted save saved export exported write written join joined combine merged merge keep " +
    "result results table file files total number average mean median sum count many much distinct unique " +
    "different sort sorted order ordered ascending descending top bottom highest lowest largest smallest " +
    "most least fewest more less fewer than over above under below greater higher lower bigger exactly " +
    "equal equals at least most csv json parquet tsv xlsx list show give tell what how which only all " +
    "values value column columns chart plot graph bar pie line"
  ).split(" "),
);

const MORE = "(?:more|greater|higher|larger|bigger|longer|heavier|over|above|after|later than|newer than)";
const LESS = "(?:less|fewer|lower|smaller|shorter|lighter|under|below|before|earlier than|older than)";
const NUM = "(-?\\d+(?:[.,]\\d+)*)";
/** Ends a column phrase. */
const BREAK = new Set([
  "and",
  "or",
  "with",
  "by",
  "per",
  "sorted",
  "ordered",
  "as",
  "in",
  "from",
  "of",
  "for",
  "where",
  "whose",
  "that",
  "which",
  "than",
  "is",
  "are",
  "has",
  "have",
  "to",
  "into",
  "the",
  "a",
  "an",
]);

const COMPARISONS: [RegExp, CompareOp][] = [
  [new RegExp(`\\b(?:at least|no less than|not less than|>=)\\s*${NUM}`, "g"), ">="],
  [new RegExp(`\\b(?:at most|no more than|not more than|<=)\\s*${NUM}`, "g"), "<="],
  [new RegExp(`\\b${MORE}(?: than)?\\s+${NUM}`, "g"), ">"],
  [new RegExp(`\\b${LESS}(?: than)?\\s+${NUM}`, "g"), "<"],
  [new RegExp(`(?:\\bexactly|\\bequal to|\\bequals|=)\\s*${NUM}`, "g"), "="],
  [new RegExp(`(>|<)\\s*${NUM}`, "g"), ">"],
];

/** Content words of a phrase, up to the first break word, in order. */
function phrase(ws: string[]): string[] {
  const out: string[] = [];
  for (const w of ws) {
    if (BREAK.has(w)) {
      if (out.length > 0) break;
      continue;
    }
    if (/^\d/.test(w)) break;
    out.push(w);
  }
  return out;
}

/** The phrase just before a position, read backwards to a break word. */
function phraseBefore(ws: string[]): string[] {
  const out: string[] = [];
  for (let i = ws.length - 1; i >= 0; i--) {
    const w = ws[i]!;
    if (BREAK.has(w) || /^\d/.test(w)) {
      // "diameter of at least", "elevation is over": the verb or "of" before the comparison.
      if (out.length > 0 || !["is", "of", "are", "was", "were", "be"].includes(w)) break;
      continue;
    }
    out.unshift(w);
  }
  return out;
}

const num = (s: string) => Number(s.replace(/,(?=\d{3}\b)/g, ""));

export function parseTransform(intent: Intent, extraFiles: string[]): TransformRequest {
  let text = ` ${intent.text.toLowerCase().replace(/[’‘]/g, "'")} `;
  const files = [...(intent.explicitFile ? [intent.explicitFile] : []), ...extraFiles];
  for (const f of files) text = text.split(f.toLowerCase()).join(" ");
  const consumed: string[] = [];
  const take = (ws: string[]) => {
    consumed.push(...ws);
    return ws;
  };

  // ---- format ("convert X to json", "save … as csv")
  let format: TransformRequest["format"];
  const fm = /\b(?:as|to|into|in)\s+(?:an?\s+)?(csv|json|parquet)\b/.exec(text);
  if (fm && /\b(?:convert|save|export|write|turn|store|copy)\b/.test(text)) {
    format = fm[1] as TransformRequest["format"];
    text = text.replace(fm[0], " ");
  }

  // ---- comparisons
  const comparisons: Comparison[] = [];
  for (const [re, op] of COMPARISONS) {
    for (const m of [...text.matchAll(re)]) {
      const sign = m[1] === ">" || m[1] === "<" ? m[1] : undefined;
      const value = num(sign ? m[2]! : m[1]!);
      const at = m.index;
      comparisons.push({
        op: sign === "<" ? "<" : op,
        value,
        before: phraseBefore(words(text.slice(0, at))),
        after: phrase(words(text.slice(at + m[0].length))),
      });
    }
    text = text.replace(re, " ");
  }

  // ---- join ("join a.json with b.xlsx on planet")
  let join: TransformRequest["join"];
  if (/\b(?:join|joined|combine|merge|merged)\b/.test(text) && files.length >= 2) {
    const on =
      /\b(?:on|by|using)\s+(?:the\s+)?(?:column\s+)?["']?([\p{L}\p{N} _()-]{1,60}?)["']?\s*(?:column)?\s*[?!.]?\s*$/iu.exec(
        text,
      );
    join = { files: [files[0]!, files[1]!], on: on ? take(words(on[1]!)) : [] };
    if (on) text = text.replace(on[0], " ");
  }

  const ws = words(text);

  // ---- grouping ("per agency", "by planet", "for each type")
  let groupBy: string[] = [];
  const sortAt = ws.findIndex(
    (w, i) => (w === "sorted" || w === "ordered" || w === "sort" || w === "order") && ws[i + 1] === "by",
  );
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    const isGroup =
      w === "per" ||
      (w === "for" && (ws[i + 1] === "each" || ws[i + 1] === "every")) ||
      (w === "grouped" && ws[i + 1] === "by") ||
      (w === "by" && i - 1 !== sortAt && !(intent.rank && !intent.agg));
    if (!isGroup || groupBy.length > 0) continue;
    const start = w === "for" || w === "grouped" ? i + 2 : i + 1;
    groupBy = take(phrase(ws.slice(start).filter((x) => x !== "each" && x !== "every")));
  }

  // ---- sort and limit ("sorted by diameter", "top 3 … by mpg", "the 5 … with the most moons")
  let sort: TransformRequest["sort"];
  let limit: number | undefined;
  if (sortAt >= 0) {
    const after = phrase(ws.slice(sortAt + 2));
    const order = /\bdesc(?:ending)?\b|\blargest first\b|\bhighest first\b/.test(text) ? "desc" : "asc";
    sort = { words: take(after), order };
  }
  // "at least 300" and "no more than 5" are comparisons, not rankings.
  const rank = /\b(?:at (?:least|most)|no (?:more|less) than)\b/.test(intent.text.toLowerCase())
    ? undefined
    : intent.rank;
  if (rank) {
    // "the 2 moons with the largest diameter": the count may come well before the rank word.
    const early = ws
      .slice(0, Math.max(0, ws.indexOf(rank.word)))
      .map(smallNumber)
      .find((x) => x !== undefined);
    limit = rank.n ?? early ?? (/^(?:top|bottom)$/.test(rank.word) ? 10 : 1);
    if (!sort) {
      const byAt = ws.indexOf("by");
      const rankAt = ws.indexOf(rank.word);
      const wordsAfter = byAt >= 0 ? phrase(ws.slice(byAt + 1)) : phrase(ws.slice(rankAt + 1));
      sort = {
        words: take(byAt >= 0 || !/^(?:top|bottom)$/.test(rank.word) ? wordsAfter : []),
        order: rank.order,
      };
    }
  }
  const n = /\b(?:first|top|last)\s+(\d{1,4})\b/.exec(text) ?? /\blimit\s+(\d{1,4})\b/.exec(text);
  if (limit === undefined && n) limit = Number(n[1]);

  // ---- distinct ("distinct targets", "unique agencies", "list the different types")
  let distinct: string[] | undefined;
  const d = ws.findIndex((w) => w === "distinct" || w === "unique" || w === "different");
  if (d >= 0) distinct = take(phrase(ws.slice(d + 1)));

  // ---- aggregate ("average diameter", "how many", "number of", "median launch year")
  const agg = intent.agg;
  let measure: string[] = [];
  if (agg && agg !== "count") {
    const at = ws.findIndex((w) => /^(?:average|avg|mean|median|total|sum|maximum|max|minimum|min)$/.test(w));
    if (at >= 0) measure = take(phrase(ws.slice(at + 1)));
  }

  for (const c of comparisons) consumed.push(...c.after, ...c.before);
  const small = (w: string) => smallNumber(w) !== undefined;
  const rest = ws.filter(
    (w) => !consumed.includes(w) && !STOP.has(w) && !FILLER.has(w) && !/^\d+$/.test(w) && !small(w),
  );
  return {
    ...(agg ? { agg } : {}),
    measure,
    groupBy,
    comparisons,
    ...(sort ? { sort } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(distinct ? { distinct } : {}),
    ...(join ? { join } : {}),
    ...(format ? { format } : {}),
    ...(intent.chartType ? { chart: intent.chartType } : {}),
    files,
    words: [...new Set(rest)],
  };
}
