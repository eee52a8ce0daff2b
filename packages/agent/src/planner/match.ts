import type { ColumnProfile } from "./types.js";
import { SYNONYM_GROUPS, WEAK } from "./vocabulary.js";
import { bestSim, stem, stems, tokenSim } from "./text.js";

/*
 * Loose matching of request words to file names, sheet names and column headers. Everything is
 * token based: the request's stemmed words are compared with the stemmed words of each name, so
 * case, separators, plurals, units in brackets and partial words all match without any list of
 * the workspace's names. A small table of generic synonyms covers words that share no letters
 * ("cost" ↔ "price"); it is a tie-breaker, weaker than a real match.
 */

/** Smallest token similarity that counts as a match. */
export const MIN_SIM = 0.6;
const SYNONYM_WEIGHT = 0.7;

const SYNONYMS = new Map<string, string[]>();
for (const group of SYNONYM_GROUPS) {
  for (const w of group) SYNONYMS.set(w, [...(SYNONYMS.get(w) ?? []), ...group.filter((o) => o !== w)]);
}

/** A header's words, with bracketed units apart: "Diameter (km)" → main [diameter], units [km]. */
export function headerTokens(name: string): { main: string[]; units: string[] } {
  const units = [...name.matchAll(/[([]([^)\]]*)[)\]]/g)].flatMap((m) => stems(m[1]!));
  const main = stems(name.replace(/[([][^)\]]*[)\]]/g, " "));
  return { main: main.length > 0 ? main : units, units };
}

/** Similarity of a request token to a name's tokens, synonyms included at a lower weight. */
export function termSim(term: string, tokens: readonly string[]): number {
  let s = bestSim(term, tokens);
  if (s < 1) {
    for (const syn of SYNONYMS.get(term) ?? []) s = Math.max(s, SYNONYM_WEIGHT * bestSim(syn, tokens));
  }
  return s >= MIN_SIM * SYNONYM_WEIGHT ? s : 0;
}

export interface PhraseMatch {
  column: ColumnProfile;
  score: number;
  /** Indexes of the phrase words that the column explains. */
  used: number[];
}

/**
 * How well a phrase (stemmed words) names a column: the sum of the words' best similarities,
 * plus a bonus for covering the header's words (so "unit prices" prefers `unit_price_usd` to `units`).
 */
export function phraseScore(phrase: readonly string[], column: ColumnProfile): PhraseMatch {
  const { main, units } = headerTokens(column.name);
  const used: number[] = [];
  let total = 0;
  phrase.forEach((t, i) => {
    // A vocabulary word ("make", "type", "total") names a column only when a header word is exactly it.
    const s = t.startsWith(WEAK)
      ? main.includes(t.slice(WEAK.length))
        ? 1
        : 0
      : Math.max(termSim(t, main), 0.5 * bestSim(t, units));
    if (s >= MIN_SIM * SYNONYM_WEIGHT) {
      used.push(i);
      total += s;
    }
  });
  if (used.length === 0) return { column, score: 0, used };
  const plain = phrase.map((t) => (t.startsWith(WEAK) ? t.slice(WEAK.length) : t));
  const covered = main.filter((m) => plain.some((t) => tokenSim(t, m) >= MIN_SIM)).length;
  const exact = plain.join(" ") === main.join(" ") ? 0.2 : 0;
  // At equal words a name beats an id ("student" → Student Name rather than Student ID).
  const idPenalty = /(?:^|[\s_-])id$/i.test(column.name.trim()) ? 0.05 : 0;
  return { column, score: total + 0.3 * (covered / Math.max(1, main.length)) + exact - idPenalty, used };
}

/**
 * The columns a phrase names, best first: greedily takes the best-matching column, removes the
 * words it explains, and repeats ("oslo madrid temps" → Oslo, Madrid).
 */
export function resolvePhrase(
  phraseWords: readonly string[],
  columns: readonly ColumnProfile[],
  accept: (c: ColumnProfile) => boolean = () => true,
): PhraseMatch[] {
  let remaining = phraseWords.map((w) => (w.startsWith(WEAK) ? `${WEAK}${stem(w.slice(WEAK.length))}` : stem(w)));
  const found: PhraseMatch[] = [];
  const pool = columns.filter(accept);
  while (remaining.length > 0) {
    let best: PhraseMatch | undefined;
    for (const c of pool) {
      if (found.some((f) => f.column === c)) continue;
      const m = phraseScore(remaining, c);
      if (m.score > 0 && (best === undefined || m.score > best.score)) best = m;
    }
    if (!best) break;
    // A vocabulary word left over ("mean" after "mean diameter" matched Diameter) names nothing more.
    if (found.length > 0 && remaining.every((t) => t.startsWith(WEAK))) break;
    found.push(best);
    const used = new Set(best.used);
    remaining = remaining.filter((_, i) => !used.has(i));
  }
  return found;
}

/** Splits a workspace path into base-name tokens and folder tokens. */
export function pathTokens(path: string): { base: string[]; dirs: string[] } {
  const parts = path.split("/");
  const file = parts.pop() ?? "";
  const base = file.replace(/\.[a-z0-9]+$/i, "");
  return { base: stems(base), dirs: parts.flatMap((p) => stems(p)) };
}

/** How well request terms name a file (and sheet): base name counts fully, folders and sheet less. */
export function nameScore(path: string, terms: readonly string[], sheet?: string): number {
  const { base, dirs } = pathTokens(path);
  const sheetTokens = sheet ? stems(sheet) : [];
  let total = 0;
  for (const t of terms) {
    total += Math.max(termSim(t, base), 0.6 * termSim(t, dirs), 0.9 * termSim(t, sheetTokens));
  }
  return total;
}

/** How many request terms the table's headers explain (each term once, by its best column). */
export function columnScore(terms: readonly string[], columns: readonly ColumnProfile[]): number {
  let total = 0;
  for (const t of terms) {
    let best = 0;
    for (const c of columns) best = Math.max(best, termSim(t, headerTokens(c.name).main));
    total += best;
  }
  return total;
}

/** The sheet a phrase names ("dwarf planets" → "Dwarf planets"), if any matches. */
export function pickSheet(phrase: string, sheets: readonly string[]): string | undefined {
  const want = stems(phrase);
  let best: { sheet: string; score: number } | undefined;
  for (const s of sheets) {
    const tokens = stems(s);
    let score = want.reduce((acc, t) => acc + bestSim(t, tokens), 0) / Math.max(want.length, tokens.length);
    if (s.trim().toLowerCase() === phrase.trim().toLowerCase()) score += 1;
    if (score > 0.3 && (best === undefined || score > best.score)) best = { sheet: s, score };
  }
  if (!best && /^\d+$/.test(phrase.trim())) return sheets[Number(phrase) - 1];
  return best?.sheet;
}
