import { notFound, capabilities } from "../answers.js";
import { planChart } from "../chart/kinds.js";
import { inspectCode } from "../code/tables.js";
import { columnScore, nameScore, pickSheet } from "../match.js";
import { execOutcome, failureText, listEntries, searchMatches, type FoundEntry } from "../results.js";
import { isTablePath, tablesOf } from "../table.js";
import { stem, stems } from "../text.js";
import { listDone } from "../answers.js";
import type { Decision, Intent, PlanResult, TableProfile } from "../types.js";
import { WIRE } from "../types.js";
import { TABLE_EXTENSIONS } from "../vocabulary.js";
import { answer, call, EXEC_TIMEOUT_MS, missingTool, ok, stepsOf, type Ctx } from "./context.js";

/*
 * Steps that several flows share: finding the named or best-fitting files, inspecting candidate
 * tables, choosing one, and listing a folder. Each returns either the decision to make now (a
 * tool call, or an answer when something is missing) or what it found.
 */

const MAX_INSPECT_FILES = 25;
export const TABLE_GLOB = `*.{${TABLE_EXTENSIONS.join(",")}}`;

export interface Candidate {
  path: string;
  type: FoundEntry["type"];
  score: number;
}

export function sameFile(path: string, wanted: string): boolean {
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
export function notFoundStep(ctx: Ctx, wanted: string, matches: FoundEntry[]): Decision {
  const loose = looseGlob(wanted);
  if (stepsOf(ctx, "search").length === 1 && loose) return call(WIRE.search, { query: loose });
  const similar = matches.filter((m) => m.type !== "directory").map((m) => m.path);
  return answer(notFound(`"${wanted}"`, similar, similar.length > 0 ? "Similar names" : undefined));
}

export function dedupe(entries: FoundEntry[]): FoundEntry[] {
  const seen = new Map<string, FoundEntry>();
  for (const e of entries) if (!seen.has(e.path)) seen.set(e.path, e);
  return [...seen.values()];
}

/** A glob that finds any of the request's words in a name: `*{planet,moon}*`. */
export function termsGlob(terms: string[]): string | undefined {
  const ws = [...new Set(terms.filter((t) => t.length >= 2 && /^[\p{L}\p{N}]+$/u.test(t)))].slice(0, 8);
  if (ws.length === 0) return undefined;
  return ws.length === 1 ? `*${ws[0]}*` : `*{${ws.join(",")}}*`;
}

export function rankCandidates(ctx: Ctx, entries: FoundEntry[]): Candidate[] {
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
export function findTables(ctx: Ctx): Decision | Candidate[] {
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
export function filesToInspect(ctx: Ctx, candidates: Candidate[]): string[] {
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
export function inspected(ctx: Ctx, candidates: Candidate[]): Decision | TableProfile[] {
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
    return call(WIRE.exec, { code: inspectCode(files), timeoutMs: EXEC_TIMEOUT_MS }, { step: "inspect" });
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
export function chooseTable(ctx: Ctx, tables: TableProfile[], withPlan: boolean): Choice {
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

export function listPath(ctx: Ctx, path: string): Decision {
  if (!ctx.has(WIRE.list)) return missingTool(WIRE.list);
  const lists = stepsOf(ctx, "list");
  const last = lists[lists.length - 1];
  if (!last) return call(WIRE.list, { path, depth: 2, limit: 500 });
  if (!ok(last)) return answer(`Could not list ${path}: ${failureText(last)}`);
  const { path: shown, entries, truncated } = listEntries(last);
  return answer(listDone(shown, entries, truncated));
}
