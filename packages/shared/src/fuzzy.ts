/**
 * Quick-open matching: the query's characters must appear in order in the path (a subsequence,
 * case-insensitive, spaces ignored). Shared so the server ranks and the browser highlights alike.
 */
export interface FuzzyMatch {
  score: number;
  /** Indexes into the path of the matched characters. */
  positions: number[];
}

const BOUNDARY = new Set(["/", ".", "_", "-", " "]);
// A path has few occurrences of the query's first character; this caps the work for pathological ones.
const MAX_STARTS = 48;

/** Lower-cases and drops whitespace: `"pla xl"` and `"plaxl"` match the same paths. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, "");
}

/**
 * Best match of `query` (already normalized) in `path`, or undefined. Ranking, in weight order:
 * an exact or prefix match of the base name, contiguous runs, matches at word starts, matches inside
 * the base name, then shorter paths.
 */
export function fuzzyMatch(query: string, path: string, lowerPath = path.toLowerCase()): FuzzyMatch | undefined {
  const base = lowerPath.lastIndexOf("/") + 1;
  if (query === "") return { score: -lowerPath.length / 64, positions: [] };
  let best: FuzzyMatch | undefined;
  let start = lowerPath.indexOf(query[0]!);
  for (let tries = 0; start >= 0 && tries < MAX_STARTS; tries++) {
    const positions = greedyFrom(query, lowerPath, start);
    // Later starts leave less of the path, so once one fails all later ones fail too.
    if (!positions) break;
    const score = scoreOf(path, lowerPath, base, query, positions);
    if (!best || score > best.score) best = { score, positions };
    start = lowerPath.indexOf(query[0]!, start + 1);
  }
  return best;
}

function greedyFrom(query: string, lowerPath: string, start: number): number[] | undefined {
  const positions = [start];
  let at = start + 1;
  for (let i = 1; i < query.length; i++) {
    // Prefer continuing a run; otherwise take the next occurrence.
    const next = lowerPath[at] === query[i] ? at : lowerPath.indexOf(query[i]!, at);
    if (next < 0) return undefined;
    positions.push(next);
    at = next + 1;
  }
  return positions;
}

function scoreOf(path: string, lowerPath: string, base: number, query: string, positions: number[]): number {
  let score = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    const prev = positions[i - 1];
    score += 1;
    if (prev !== undefined) {
      if (p === prev + 1) score += 8;
      else score -= Math.min(p - prev - 1, 12) * 0.4;
    }
    const before = path[p - 1];
    if (p === 0 || (before !== undefined && BOUNDARY.has(before))) score += 6;
    else if (before !== undefined && isLower(before) && isUpper(path[p]!)) score += 4;
    if (p >= base) score += 2;
  }
  if (positions[0]! >= base) score += 10;
  const name = lowerPath.slice(base);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  if (name === query || stem === query) score += 30;
  else if (name.startsWith(query)) score += 15;
  return score - lowerPath.length / 64;
}

const isLower = (c: string): boolean => c !== c.toUpperCase() && c === c.toLowerCase();
const isUpper = (c: string): boolean => c !== c.toLowerCase() && c === c.toUpperCase();
