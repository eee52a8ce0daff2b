import type { Intent, IntentKind } from "../types.js";
import { WEAK } from "../vocabulary.js";

/*
 * Which kind of request it is: an ordered table of rules, the first that holds wins. Each rule
 * reads precomputed features (verbs found, slots filled), so a new kind of request is one row
 * placed above the rules it must beat, with an example of what it catches.
 */

export interface Features {
  intent: Intent;
  /** The whole request, lowercased. */
  full: string;
  /** The request without its file and sheet references, lowercased. */
  lower: string;
  /** A chart word was written ("chart", "plot", "pie", …). */
  chartWord: boolean;
  quoted: string[];
}

interface Derived extends Features {
  /** A grouping slot is filled: "by X", "over X", "X vs Y". */
  hasBy: boolean;
  listVerb: boolean;
  findVerb: boolean;
  describeVerb: boolean;
  previewVerb: boolean;
  /** Starts with what/which/how: a question that wants a fact. */
  question: boolean;
}

export interface IntentRule {
  kind: IntentKind;
  /** A request this rule catches (documentation, and checked by the intent tests). */
  example: string;
  when: (f: Derived) => boolean;
}

const LIST_VERB =
  /\b(?:list|ls|tree)\b|\bwhat(?:'s| is| files are)? in (?:the )?(?:folder|directory|dir)\b|\bwhat(?:'s| is| files are)? in (?:the )?[\w./-]+ (?:folder|directory|dir)\b|\bwhat(?:'s| is) in [\w./-]+\/?\s*\??$|\b(?:folder|directory) (?:structure|tree|contents?)\b|\bcontents? of (?:the )?(?:folder|directory|dir)\b|\bproject (?:structure|layout)\b|\b(?:show|give|tell) (?:me )?(?:all )?(?:the )?files\b|\bwhat files\b|\bwhich files are (?:in|there)\b/;
const FIND_VERB =
  /\b(?:find|search|locate|look for|looking for|where (?:is|are|can i find)|which files?|any files?|files? (?:named|called|containing|that (?:contain|mention)|mentioning|about|with))\b/;
const DESCRIBE_VERB =
  /\b(?:describe|description|summari[sz]e|summary|statistics|stats|schema|profile|columns?|fields|headers|data ?types?|what(?:'s| is) (?:in|inside) (?:the )?(?:table|dataset|spreadsheet))\b/;
const PREVIEW_VERB =
  /\b(?:open|show|read|preview|view|display|print|cat|head|look at|peek|see|contents? of|what(?:'s| is) in(?:side)?)\b/;
const TYPE_WORD =
  /\b(?:csv|tsv|xlsx|json|markdown|md|images?|pictures?|spreadsheets?|excel|javascript|scripts?|pngs?|notes)\b/;

/** Signs of a transform: a join of two files, a conversion, distinct values, a median, a sort, a comparison. */
const TRANSFORM_WORDS =
  /\b(?:join|joined|merge|combine)\b.*\.(?:csv|tsv|xlsx|json|jsonl|parquet)\b.*\.(?:csv|tsv|xlsx|json|jsonl|parquet)\b|\b(?:convert|export|save|write)\b.*\b(?:as|to|into)\s+(?:an?\s+)?(?:csv|json|parquet)\b|\b(?:distinct|unique)\b|\bmedian\b|\b(?:sorted|ordered|sort|order) by\b/;
const COMPARISON =
  /\b(?:more|greater|higher|larger|bigger|less|fewer|lower|smaller|over|above|under|below|after|before|at least|at most|exactly)(?: than)?\s+-?\d|[<>]=?\s*-?\d/;

const hasStrongHead = (i: Intent) => i.segments.head.some((p) => p.some((w) => !w.startsWith(WEAK)));

/** The rules, in order: the first that holds names the kind. */
export const INTENT_RULES: readonly IntentRule[] = [
  {
    kind: "help",
    example: "hello",
    when: (f) => f.full.trim() === "" || /^(?:hi|hello|hey|help|\?|thanks?|thank you)\b[\s!.?]*$/.test(f.full.trim()),
  },
  {
    kind: "help",
    example: "what can you do?",
    when: (f) =>
      /\bwhat can you do\b|\bhow do (?:i|you) use\b|\bwhat do you (?:do|support)\b|\bwho are you\b/.test(f.full),
  },
  {
    kind: "transform",
    example: "cars from Japan with mpg over 30",
    when: (f) => (TRANSFORM_WORDS.test(f.full) || COMPARISON.test(f.full)) && !f.findVerb && !f.listVerb,
  },
  {
    kind: "transform",
    example: "how many missions went to Mars?",
    when: (f) =>
      f.intent.agg !== undefined &&
      !f.hasBy &&
      f.intent.rank === undefined &&
      !f.chartWord &&
      !f.intent.chartType &&
      !f.findVerb,
  },
  {
    kind: "chart",
    example: "pie chart of the largest planets from planets.xlsx",
    when: (f) => f.chartWord || f.intent.chartType !== undefined || /\bcompar(?:e|es|ing|ison)\b/.test(f.full),
  },
  {
    kind: "chart",
    example: "Orbital launch attempts vs. successes",
    when: (f) => f.intent.segments.vs.length > 0 && f.intent.segments.head.length > 0 && !f.findVerb,
  },
  {
    kind: "chart",
    example: "average salary by department",
    when: (f) => f.intent.agg !== undefined && f.hasBy && !f.findVerb,
  },
  {
    kind: "find",
    example: "list all csv files",
    when: (f) => f.listVerb && !f.intent.explicitFile && TYPE_WORD.test(f.lower) && f.intent.folderWords.length === 0,
  },
  { kind: "list", example: "list the files in data", when: (f) => f.listVerb && !f.intent.explicitFile },
  { kind: "find", example: "find files about moons", when: (f) => f.findVerb },
  {
    kind: "rank",
    example: "which planet has the most moons?",
    when: (f) => /^\s*(?:which|what)\b/.test(f.full) && f.intent.rank !== undefined && !f.describeVerb,
  },
  { kind: "describe", example: "describe employees.json", when: (f) => f.describeVerb && !/\bopen\b/.test(f.full) },
  {
    kind: "transform",
    example: "which missions went to Mars?",
    when: (f) => /^\s*which\b/.test(f.full) && f.intent.rank === undefined && f.intent.terms.length > 0,
  },
  {
    kind: "chart",
    example: "requests per status code",
    when: (f) => f.hasBy && hasStrongHead(f.intent) && !/\b(?:open|read|preview|cat|head)\b/.test(f.full),
  },
  {
    kind: "rank",
    example: "planets with the most moons",
    when: (f) => f.intent.rank !== undefined && f.intent.terms.length > 0 && !f.previewVerb,
  },
  {
    kind: "chart",
    example: "how did successes change over the years?",
    when: (f) => f.intent.overTime && f.intent.terms.length > 0 && !f.previewVerb,
  },
  {
    kind: "preview",
    example: "preview daily temps",
    when: (f) =>
      f.previewVerb && (f.intent.explicitFile !== undefined || f.intent.terms.length > 0 || f.quoted.length > 0),
  },
  { kind: "preview", example: "planets.xlsx", when: (f) => f.intent.explicitFile !== undefined },
  {
    // No verb, a thing and a value: "cars from Japan", "observatories in Chile" filter a table.
    kind: "transform",
    example: "missions to Mars",
    when: (f) => f.intent.terms.length >= 2 && /\b(?:to|from|in|at|with|on)\b/.test(f.full) && !f.previewVerb,
  },
];

export function derive(f: Features): Derived {
  const { segments } = f.intent;
  return {
    ...f,
    hasBy: segments.by.length > 0 || segments.over.length > 0 || segments.vs.length > 0,
    listVerb: LIST_VERB.test(f.full),
    findVerb: FIND_VERB.test(f.full),
    describeVerb: DESCRIBE_VERB.test(f.full),
    previewVerb: PREVIEW_VERB.test(f.full),
    question: /^\s*(?:what|which|how)\b/.test(f.full),
  };
}

export function classify(f: Features): IntentKind {
  const d = derive(f);
  return INTENT_RULES.find((r) => r.when(d))?.kind ?? "unknown";
}
