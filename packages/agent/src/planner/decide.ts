import {
  capabilities,
  chartDone,
  describeDone,
  findDone,
  listDone,
  notFound,
  previewTableDone,
  previewTextDone,
  rankDone,
} from "./answers.js";
import { planChart, type ChartPlan, type PlanResult } from "./chart-plan.js";
import { chartCode, describeCode, inspectCode, previewCode, rankCode } from "./codegen.js";
import { parseIntent, type Intent } from "./intent.js";
import { columnScore, nameScore, pickSheet } from "./match.js";
import { execOutcome, failureText, listEntries, searchMatches, type FoundEntry } from "./results.js";
import { WIRE, type Step, type StepKind, type Turn, type WireTool } from "./state.js";
import { isTablePath, TABLE_EXTENSIONS, tablesOf, type TableProfile } from "./table.js";
import { stem, stems, str, words } from "./text.js";

/*
 * The policy: given the request and what the turn's tool calls returned so far, the next step.
 * Each flow is a fixed sequence (search → inspect → act → answer) that skips what is already
 * done and recovers once from a failed step, so the same message list always gives the same
 * decision.
 */

export interface PlannedCall {
  name: WireTool;
  args: Record<string, unknown>;
}

export type Decision = { calls: PlannedCall[] } | { answer: string };

/** A turn never makes more tool calls than this (the graph's recursion limit is a second guard). */
export const MAX_STEPS = 12;
const MAX_INSPECT_FILES = 25;
const TABLE_GLOB = `*.{${TABLE_EXTENSIONS.join(",")}}`;
const PREVIEW_ROWS = 10;
const PREVIEW_LINES = 40;
const EXEC_TIMEOUT_MS = 20_000;

interface Ctx {
  turn: Turn;
  intent: Intent;
  steps: Step[];
  has: (tool: WireTool) => boolean;
}

interface Candidate {
  path: string;
  type: FoundEntry["type"];
  score: number;
}

const call = (name: WireTool, args: Record<string, unknown>): Decision => ({ calls: [{ name, args }] });
const answer = (text: string): Decision => ({ answer: text });
const isDecision = (v: unknown): v is Decision =>
  typeof v === "object" && v !== null && ("calls" in v || "answer" in v);

function stepsOf(ctx: Ctx, ...kinds: StepKind[]): Step[] {
  return ctx.steps.filter((s) => kinds.includes(s.kind));
}

function ok(step: Step | undefined): boolean {
  return step?.result?.ok === true;
}

/** Decides the next step of a turn. */
export function decide(turn: Turn, has: (tool: WireTool) => boolean): Decision {
  const intent = followUp(parseIntent(turn.request), turn.previousRequests);
  const ctx: Ctx = { turn, intent, steps: turn.steps, has };
  if (turn.steps.length >= MAX_STEPS) {
    const last = turn.steps[turn.steps.length - 1]!;
    return answer(
      `Stopped after ${turn.steps.length} tool calls without finishing.${ok(last) ? "" : ` The last one failed: ${failureText(last)}`}`,
    );
  }
  switch (intent.kind) {
    case "chart":
      return chartFlow(ctx, "chart");
    case "rank":
      return chartFlow(ctx, "rank");
    case "describe":
      return describeFlow(ctx);
    case "preview":
      return previewFlow(ctx);
    case "list":
      return listFlow(ctx);
    case "find":
      return findFlow(ctx);
    case "help":
      return answer(
        capabilities("This is the offline planner, textide's built-in rule-based assistant: no LLM is configured."),
      );
    default:
      return answer(capabilities());
  }
}

/** Words that carry no subject in a follow-up ("now as a bar chart instead"). */
const FOLLOW_UP_FILLER = new Set(
  "now instead again same redo try make turn change switch into thing that it this one ok okay rather".split(" "),
);

/**
 * "now as a bar chart", "top 3 instead", "on a log scale": a request that only changes the form
 * of the previous chart reuses the previous request's subject.
 */
function isFollowUp(intent: Intent): boolean {
  const changesForm = intent.chartType !== undefined || intent.rank !== undefined || intent.logScale;
  return !intent.explicitFile && changesForm && intent.terms.every((t) => FOLLOW_UP_FILLER.has(t));
}

function followUp(intent: Intent, previous: readonly string[]): Intent {
  if (!isFollowUp(intent)) return intent;
  // The latest earlier request with a subject of its own, then every form change since, in order.
  const parsed = previous.map(parseIntent);
  const at = parsed.findIndex((p) => !isFollowUp(p));
  const subject = parsed[at];
  if (!subject || (subject.kind !== "chart" && subject.kind !== "rank")) return intent;
  const changes = [...parsed.slice(0, at).reverse(), intent];
  return changes.reduce((before, change) => applyForm(before, change), subject);
}

function applyForm(before: Intent, change: Intent): Intent {
  const chartType = change.chartType ?? before.chartType;
  // "top 3 instead" after "largest planets" keeps "largest" and takes the 3.
  const generic = change.rank?.word === "top" || change.rank?.word === "bottom";
  const rank =
    change.rank && generic && before.rank
      ? { ...before.rank, ...(change.rank.n !== undefined ? { n: change.rank.n } : {}) }
      : (change.rank ?? before.rank);
  return {
    ...before,
    kind: "chart",
    text: change.text,
    ...(chartType ? { chartType } : {}),
    ...(rank ? { rank } : {}),
    logScale: change.logScale || before.logScale,
  };
}

function missingTool(tool: WireTool): Decision {
  return answer(
    capabilities(`The ${tool} tool is not available in this session, so the offline planner cannot do that.`),
  );
}

// ---- finding files ---------------------------------------------------------------------------

function sameFile(path: string, wanted: string): boolean {
  const p = path.toLowerCase();
  const w = wanted.toLowerCase().replace(/^\/+/, "");
  return p === w || p.endsWith(`/${w}`);
}

/** A looser search for a named file that was not found: its longest word ("employee.json" → `*employee*`). */
function looseGlob(name: string): string | undefined {
  const base = name
    .split("/")
    .pop()!
    .replace(/\.[a-z0-9]+$/i, "");
  const longest = stems(base)
    .filter((w) => w.length >= 3 && !/^\d+$/.test(w))
    .sort((a, b) => b.length - a.length)[0];
  return longest ? `*${longest}*` : undefined;
}

/**
 * A named file is missing: one looser search for similar names, then an answer that says so and
 * lists the near misses. The planner never substitutes another file for the one the user named.
 */
function notFoundStep(ctx: Ctx, wanted: string, matches: FoundEntry[]): Decision {
  const loose = looseGlob(wanted);
  if (stepsOf(ctx, "search").length === 1 && loose) return call(WIRE.search, { query: loose });
  const similar = matches.filter((m) => m.type !== "directory").map((m) => m.path);
  return answer(notFound(`"${wanted}"`, similar, similar.length > 0 ? "Similar names" : undefined));
}

function dedupe(entries: FoundEntry[]): FoundEntry[] {
  const seen = new Map<string, FoundEntry>();
  for (const e of entries) if (!seen.has(e.path)) seen.set(e.path, e);
  return [...seen.values()];
}

/** A glob that finds any of the request's words in a name: `*{planet,moon}*`. */
function termsGlob(terms: string[]): string | undefined {
  const ws = [...new Set(terms.filter((t) => t.length >= 2 && /^[\p{L}\p{N}]+$/u.test(t)))].slice(0, 8);
  if (ws.length === 0) return undefined;
  return ws.length === 1 ? `*${ws[0]}*` : `*{${ws.join(",")}}*`;
}

function rankCandidates(ctx: Ctx, entries: FoundEntry[]): Candidate[] {
  const previous = ctx.turn.earlierFiles[0];
  // Files whose text contains a column word of the request (see findTables).
  const byContent = new Set(
    stepsOf(ctx, "search")
      .filter((s) => s.args.content !== undefined)
      .flatMap((s) => searchMatches(s).map((m) => m.path)),
  );
  return entries
    .map((e) => ({
      path: e.path,
      type: e.type,
      score:
        nameScore(e.path, ctx.intent.terms) +
        (byContent.has(e.path) ? 1 : 0) +
        (previous === e.path && !ctx.intent.explicitFile ? 0.5 : 0) -
        (e.root === "generated_assets" || e.path.startsWith("generated_assets/") ? 0.5 : 0),
    }))
    .sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
}

/**
 * Search results → candidate files for a table request. Searches first (the named file, or
 * every table), then once more with a looser name when a named file is missing.
 */
function findTables(ctx: Ctx): Decision | Candidate[] {
  const { intent } = ctx;
  const searches = stepsOf(ctx, "search");
  if (!ctx.has(WIRE.search)) return missingTool(WIRE.search);
  if (searches.length === 0) {
    return call(WIRE.search, intent.explicitFile ? { query: intent.explicitFile } : { query: TABLE_GLOB, limit: 1000 });
  }
  const matches = dedupe(searches.flatMap(searchMatches)).filter((m) => m.type !== "directory");
  if (intent.explicitFile) {
    const wanted = intent.explicitFile;
    const hits = matches.filter((m) => sameFile(m.path, wanted));
    if (hits.length === 0) return notFoundStep(ctx, wanted, matches);
    return rankCandidates(ctx, hits);
  }
  const tables = matches.filter((m) => isTablePath(m.path));
  if (tables.length === 0) {
    return answer(capabilities("No .csv, .tsv, .xlsx or .json tables were found in the workspace."));
  }
  const ranked = rankCandidates(ctx, tables);
  // Too many tables to inspect and no name fits: look for a column word inside them first
  // (CSV, TSV and JSON files carry their headers as text).
  if (ranked.length > MAX_INSPECT_FILES && (ranked[0]?.score ?? 0) < 0.6 && searches.length === 1) {
    const word = columnWords(intent).sort((a, b) => b.length - a.length)[0];
    if (word) return call(WIRE.search, { query: TABLE_GLOB, content: word, limit: 200 });
  }
  return ranked;
}

/** Content words of the request's column slots, stemmed ("salaries" → "salary"). */
function columnWords(intent: Intent): string[] {
  const { head, by, over, vs } = intent.segments;
  return [...head, ...by, ...over, ...vs]
    .flat()
    .filter((w) => !w.startsWith("~"))
    .map(stem)
    .filter((w) => w.length >= 4);
}

/** Which candidates to inspect: the named one(s), or the best name matches. */
function filesToInspect(ctx: Ctx, candidates: Candidate[]): string[] {
  const tables = candidates.filter((c) => isTablePath(c.path));
  if (ctx.intent.explicitFile) return tables.slice(0, 3).map((c) => c.path);
  const fileWords = ctx.intent.fileWords.map(stem);
  if (fileWords.length > 0) {
    const scored = tables.map((c) => ({ c, s: nameScore(c.path, fileWords) }));
    const top = Math.max(...scored.map((x) => x.s));
    if (top >= 0.6 * fileWords.length) {
      return scored
        .filter((x) => x.s >= top - 0.01)
        .slice(0, 3)
        .map((x) => x.c.path);
    }
  }
  return tables.slice(0, MAX_INSPECT_FILES).map((c) => c.path);
}

/** The latest inspection's tables, or the step that gets them. */
function inspected(ctx: Ctx, candidates: Candidate[]): Decision | TableProfile[] {
  const inspects = stepsOf(ctx, "inspect");
  const last = inspects[inspects.length - 1];
  if (!last) {
    const files = filesToInspect(ctx, candidates);
    if (files.length === 0) {
      return answer(
        capabilities(
          `${candidates.map((c) => c.path).join(", ")} ${candidates.length === 1 ? "is" : "are"} not a table (.csv, .tsv, .xlsx, .json).`,
        ),
      );
    }
    return call(WIRE.exec, { code: inspectCode(files), timeoutMs: EXEC_TIMEOUT_MS });
  }
  const outcome = execOutcome(last);
  if (!outcome?.ok) return answer(`Could not read the table${candidates.length > 1 ? "s" : ""}: ${failureText(last)}`);
  const all = tablesOf(outcome.result);
  const tables = all.filter((t) => t.error === undefined && t.columns.length > 0);
  if (tables.length === 0) {
    const why = all
      .map((t) => `${t.path}${t.sheet ? ` (sheet "${t.sheet}")` : ""}: ${t.error ?? "no columns"}`)
      .join("\n");
    return answer(`None of the candidate files could be read as a table.\n${why}`);
  }
  return tables;
}

interface Choice {
  table: TableProfile;
  plan?: PlanResult;
  /** Other files that fit the request exactly as well (the user may have meant one of them). */
  ties: string[];
}

/** The table (and sheet) that best fits the request: file name, sheet name and columns. */
function chooseTable(ctx: Ctx, tables: TableProfile[], withPlan: boolean): Choice {
  const { intent } = ctx;
  let best: (Omit<Choice, "ties"> & { score: number }) | undefined;
  const scores: { path: string; score: number }[] = [];
  for (const table of tables) {
    let score = intent.explicitFile ? 0 : nameScore(table.path, intent.terms, table.sheet);
    if (table.sheets && table.sheet !== undefined) {
      if (intent.sheet) score += pickSheet(intent.sheet, table.sheets) === table.sheet ? 3 : -1;
      else if (table.sheet === table.sheets[0]) score += 0.1;
    }
    if (ctx.turn.earlierFiles[0] === table.path && !intent.explicitFile) score += 0.5;
    let plan: PlanResult | undefined;
    if (withPlan) {
      plan = planChart(intent, table);
      score += plan.ok ? plan.plan.fit : plan.fit - 3;
    } else {
      score += columnScore(intent.terms, table.columns);
    }
    scores.push({ path: table.path, score });
    if (best === undefined || score > best.score + 1e-9) best = { table, score, ...(plan ? { plan } : {}) };
  }
  const top = best!;
  const ties = [
    ...new Set(scores.filter((s) => s.path !== top.table.path && s.score >= top.score - 1e-6).map((s) => s.path)),
  ];
  return { ...top, ties };
}

// ---- chart and rank ---------------------------------------------------------------------------

function simplify(plan: ChartPlan): ChartPlan {
  const { series: _series, ...rest } = plan;
  return { ...rest, measures: plan.measures.slice(0, 1), logScale: false, otherBucket: false };
}

function chartFlow(ctx: Ctx, mode: "chart" | "rank"): Decision {
  if (!ctx.has(WIRE.exec)) return missingTool(WIRE.exec);
  const candidates = findTables(ctx);
  if (isDecision(candidates)) return candidates;
  const tables = inspected(ctx, candidates);
  if (isDecision(tables)) return tables;
  const { table, plan: result, ties } = chooseTable(ctx, tables, true);
  if (!result || !result.ok) {
    const cols = table.columns.map((c) => `${c.name} (${c.type})`).join(", ");
    return answer(
      `Could not make ${mode === "rank" ? "a ranking" : "a chart"} for that: ${result && !result.ok ? result.reason : "no plan"}\n` +
        `The closest table is ${table.path}${table.sheet ? ` (sheet "${table.sheet}")` : ""} with columns: ${cols}.\n\n` +
        `Name a numeric column to measure and a column to group by, e.g. "bar chart of <number column> by <category column>".`,
    );
  }
  const plan =
    ties.length > 0
      ? {
          ...result.plan,
          notes: [...result.plan.notes, `Other files fit as well: ${ties.join(", ")}; name the file to use another.`],
        }
      : result.plan;
  const inspectIndex = ctx.steps.lastIndexOf(stepsOf(ctx, "inspect").pop()!);
  const attempts = ctx.steps.slice(inspectIndex + 1).filter((s) => s.kind === "chart" || s.kind === "rank");
  const code = (p: ChartPlan) => (mode === "rank" ? rankCode(p) : chartCode(p));
  const last = attempts[attempts.length - 1];
  if (!last) return call(WIRE.exec, { code: code(plan), timeoutMs: EXEC_TIMEOUT_MS });
  const outcome = execOutcome(last);
  if (outcome?.ok) return answer(mode === "rank" ? rankDone(plan, outcome) : chartDone(plan, outcome));
  const why = failureText(last);
  // The file changed under us (a column vanished): look again, once.
  if (/column not found/i.test(why) && stepsOf(ctx, "inspect").length < 2) {
    return call(WIRE.exec, { code: inspectCode(filesToInspect(ctx, candidates)), timeoutMs: EXEC_TIMEOUT_MS });
  }
  if (attempts.length < 2 && mode === "chart") {
    return call(WIRE.exec, { code: code(simplify(plan)), timeoutMs: EXEC_TIMEOUT_MS });
  }
  return answer(`The ${mode === "rank" ? "ranking" : "chart"} of ${plan.file} could not be made: ${why}`);
}

// ---- describe -----------------------------------------------------------------------------------

function describeFlow(ctx: Ctx): Decision {
  const { intent } = ctx;
  if (intent.explicitFile && !isTablePath(intent.explicitFile)) return previewFlow(ctx);
  if (!ctx.has(WIRE.exec)) return previewFlow(ctx);
  const candidates = findTables(ctx);
  if (isDecision(candidates)) return candidates;
  const tablesOnly = candidates.filter((c) => isTablePath(c.path));
  if (tablesOnly.length === 0) return previewFlow(ctx);

  let target: string | undefined;
  const [first, second] = tablesOnly;
  if (intent.explicitFile || (first && first.score >= 0.8 && (!second || first.score - second.score >= 0.5))) {
    target = first!.path;
  } else {
    const tables = inspected(ctx, tablesOnly);
    if (isDecision(tables)) return tables;
    target = chooseTable(ctx, tables, false).table.path;
  }
  const describes = stepsOf(ctx, "describe");
  const last = describes[describes.length - 1];
  if (!last) return call(WIRE.exec, { code: describeCode(target), timeoutMs: EXEC_TIMEOUT_MS });
  const outcome = execOutcome(last);
  if (!outcome?.ok) return answer(`Could not describe ${target}: ${failureText(last)}`);
  let tables = tablesOf(outcome.result);
  if (intent.sheet && tables.length > 1) {
    const sheet = pickSheet(
      intent.sheet,
      tables.map((t) => t.sheet ?? ""),
    );
    if (sheet) tables = tables.filter((t) => t.sheet === sheet);
  }
  return answer(describeDone(tables));
}

// ---- preview / open -----------------------------------------------------------------------------

function previewFlow(ctx: Ctx): Decision {
  const { intent } = ctx;
  if (!ctx.has(WIRE.search)) return missingTool(WIRE.search);
  const searches = stepsOf(ctx, "search");
  if (searches.length === 0) {
    if (intent.explicitFile) return call(WIRE.search, { query: intent.explicitFile });
    const glob = termsGlob(intent.terms);
    if (!glob)
      return answer(
        capabilities('Which file? Name it (e.g. "open notes/ideas.md") or describe it with words from its name.'),
      );
    return call(WIRE.search, { query: glob });
  }
  const matches = dedupe(searches.flatMap(searchMatches));
  let target: Candidate | undefined;
  if (intent.explicitFile) {
    const wanted = intent.explicitFile;
    const hits = matches.filter((m) => sameFile(m.path, wanted));
    if (hits.length === 0) return notFoundStep(ctx, wanted, matches);
    target = rankCandidates(ctx, hits)[0];
  } else {
    // Most of the request's words must be in the name: "secret plans" does not mean planets.xlsx.
    const needed = Math.max(0.6, 0.5 * intent.terms.length);
    const ranked = rankCandidates(ctx, matches).filter((c) => c.score >= needed);
    // At equal scores a file beats a folder: "preview daily temps" means the file.
    target = ranked.sort(
      (a, b) => b.score - a.score || Number(a.type === "directory") - Number(b.type === "directory"),
    )[0];
    if (!target) return answer(notFound(`"${intent.terms.join(" ")}"`));
  }
  const path = target!.path;
  if (target!.type === "directory") return listPath(ctx, path);

  const asTable = isTablePath(path) && ctx.has(WIRE.exec);
  const previews = stepsOf(ctx, "preview");
  const reads = stepsOf(ctx, "read");
  if (asTable && previews.length === 0) {
    return call(WIRE.exec, {
      code: previewCode(path, intent.limit ?? PREVIEW_ROWS, intent.sheet),
      timeoutMs: EXEC_TIMEOUT_MS,
    });
  }
  const tableOk = asTable && ok(previews[previews.length - 1]);
  if (!tableOk && reads.length === 0) {
    if (!ctx.has(WIRE.read)) return missingTool(WIRE.read);
    return call(WIRE.read, { path, maxBytes: 64 * 1024 });
  }
  if (intent.openInIde && ctx.has(WIRE.open) && stepsOf(ctx, "open").length === 0) {
    return call(WIRE.open, { path });
  }
  const opened = stepsOf(ctx, "open").some(ok) ? `\n\nOpened ${path} in the editor.` : "";
  if (tableOk) {
    const outcome = execOutcome(previews[previews.length - 1]);
    return answer(
      previewTableDone((outcome?.result ?? {}) as Record<string, unknown>, intent.limit ?? PREVIEW_ROWS) + opened,
    );
  }
  const read = reads[reads.length - 1]!;
  if (!ok(read)) return answer(`Could not read ${path}: ${failureText(read)}`);
  // Summarising prose needs a language model; say so and show the text instead.
  const lead =
    intent.kind === "describe"
      ? "The offline planner cannot summarise text (that needs a configured model); here is the beginning of the file.\n\n"
      : "";
  return answer(
    lead + previewTextDone(path, read.result!.text, read.result!.structured, intent.limit ?? PREVIEW_LINES) + opened,
  );
}

// ---- list ---------------------------------------------------------------------------------------

function listPath(ctx: Ctx, path: string): Decision {
  if (!ctx.has(WIRE.list)) return missingTool(WIRE.list);
  const lists = stepsOf(ctx, "list");
  const last = lists[lists.length - 1];
  if (!last) return call(WIRE.list, { path, depth: 2, limit: 500 });
  if (!ok(last)) return answer(`Could not list ${path}: ${failureText(last)}`);
  const { path: shown, entries, truncated } = listEntries(last);
  return answer(listDone(shown, entries, truncated));
}

const ROOT_WORDS = new Set([".", "root", "project", "workspace", "project_root", "here", "everything", "all"]);
const ASSET_WORDS = new Set(["generated_assets", "generated", "outputs", "output", "assets", "charts"]);

function listFlow(ctx: Ctx): Decision {
  const { intent } = ctx;
  const lists = stepsOf(ctx, "list");
  const searches = stepsOf(ctx, "search");
  const folder = intent.folderWords.join(" ").trim();
  if (lists.length > 0) {
    const last = lists[lists.length - 1]!;
    if (!ok(last) && searches.length === 0 && (folder || intent.explicitDir) && ctx.has(WIRE.search)) {
      return call(WIRE.search, { query: (intent.explicitDir ?? folder).split("/").filter(Boolean).pop()! });
    }
    return listPath(ctx, str(last.args.path, "."));
  }
  if (searches.length === 0) {
    if (intent.explicitDir) return listPath(ctx, intent.explicitDir);
    if (!folder || ROOT_WORDS.has(folder)) return listPath(ctx, ".");
    if (ASSET_WORDS.has(folder)) return listPath(ctx, "generated_assets");
    if (!ctx.has(WIRE.search)) return listPath(ctx, folder);
    return call(WIRE.search, { query: folder.includes(" ") ? `*${words(folder).join("*")}*` : folder });
  }
  const matches = dedupe(searches.flatMap(searchMatches));
  const wanted = (intent.explicitDir ?? folder).toLowerCase().split("/").filter(Boolean).pop() ?? "";
  const dirs = matches
    .filter((m) => m.type === "directory")
    .map((m) => ({
      m,
      s:
        (m.path.toLowerCase().split("/").pop() === wanted ? 2 : 0) +
        nameScore(m.path, stems(wanted)) -
        m.path.length / 1000,
    }))
    .sort((a, b) => b.s - a.s);
  if (dirs[0]) return listPath(ctx, dirs[0].m.path);
  if (matches.some((m) => m.type !== "directory")) return previewFlow(ctx);
  return answer(notFound(`a folder named "${folder || intent.explicitDir}"`));
}

// ---- find ---------------------------------------------------------------------------------------

function findFlow(ctx: Ctx): Decision {
  const { intent } = ctx;
  if (!ctx.has(WIRE.search)) return missingTool(WIRE.search);
  const target = intent.find ?? {};
  const searches = stepsOf(ctx, "search");
  const name = target.name?.trim() ?? "";
  const nameQuery = (): string | undefined => {
    if (!name) return undefined;
    if (/[*?[\]{}./]/.test(name)) return name;
    const ws = stems(name).filter((w) => w.length >= 2);
    if (ws.length === 0) return undefined;
    return ws.length === 1 ? ws[0] : `*${ws.join("*")}*`;
  };
  if (searches.length === 0) {
    if (target.content) return call(WIRE.search, { content: target.content });
    if (target.glob && !name) return call(WIRE.search, { query: target.glob });
    const q = nameQuery();
    if (!q)
      return answer(capabilities('What should be found? e.g. "find files about moons" or "files containing Jupiter".'));
    return call(WIRE.search, { query: q });
  }
  const last = searches[searches.length - 1]!;
  if (!ok(last)) return answer(`The search failed: ${failureText(last)}`);
  let all = dedupe(searches.flatMap(searchMatches));
  if (target.glob && name) {
    // A name search kept to a type: "the planets spreadsheet" → tables whose name has "planet".
    const exts = /\{(.*)\}|\*\.(\w+)$/.exec(target.glob);
    const allowed = (exts?.[1] ?? exts?.[2] ?? "").split(",").filter(Boolean);
    all = all.filter((m) => m.type !== "directory" && allowed.some((e) => m.path.toLowerCase().endsWith(`.${e}`)));
  }
  if (all.length === 0 && searches.length === 1 && name && !target.content) {
    // Nothing is named like that: look inside files instead.
    return call(WIRE.search, { content: name });
  }
  const what = target.content
    ? `text "${target.content}"`
    : target.glob
      ? name
        ? `"${name}" in names of \`${target.glob}\` files`
        : `\`${target.glob}\``
      : searches.length > 1
        ? `"${name}" (in file contents; no file names match)`
        : `"${name}" in file names`;
  return answer(findDone(what, all));
}
