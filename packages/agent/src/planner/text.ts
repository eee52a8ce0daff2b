/*
 * Word-level helpers shared by the intent parser and the fuzzy matcher. Requests are matched to
 * file and column names token by token ("Diameter (km)" ↔ "diameter", "unit_price_usd" ↔ "unit
 * prices", "launchYear" ↔ "launch year"), so everything here works on lowercase, stemmed tokens.
 */

/** Splits any identifier or sentence into lowercase words: camelCase, snake_case, kebab-case, spaces, punctuation. */
export function words(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/'s\b/gi, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * A deliberately small English stemmer: plurals and a few suffixes, so "planets" ↔ "Planet",
 * "categories" ↔ "category", "remotely" ↔ "remote", "successes" ↔ "Successes". Over-stemming is
 * harmless because both sides of every comparison go through it.
 */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|ch|sh|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("ly") && w.length > 5) return w.slice(0, -2);
  if (w.endsWith("ing") && w.length > 5) return w.slice(0, -3);
  if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** Stemmed words of a string. */
export function stems(s: string): string[] {
  return words(s).map(stem);
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * How alike two stemmed tokens are, 0..1: equal 1; one a prefix of the other ("temp" ↔
 * "temperature") 0.85, or 0.6 for a 3-letter prefix; a one-letter typo in a long word 0.75.
 */
export function tokenSim(a: string, b: string): number {
  if (a === b) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 3 && long.startsWith(short)) return short.length >= 4 ? 0.85 : 0.6;
  if (short.length >= 5 && editDistanceAtMostOne(a, b)) return 0.75;
  return 0;
}

/** The best similarity of `token` to any of `others`. */
export function bestSim(token: string, others: readonly string[]): number {
  let best = 0;
  for (const o of others) {
    const s = tokenSim(token, o);
    if (s > best) best = s;
  }
  return best;
}

/** A file-name-safe slug: "Total units by region" → "total-units-by-region". */
export function slug(s: string, max = 60): string {
  const out = words(s.normalize("NFKD").replace(/[\u0300-\u036f]/g, ""))
    .join("-")
    .slice(0, max)
    .replace(/-+$/, "");
  return out || "chart";
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
};

/** A small count written as digits or a word ("3", "five"); undefined otherwise (years are not counts). */
export function smallNumber(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (/^\d{1,3}$/.test(word)) {
    const n = Number(word);
    return n >= 1 && n <= 100 ? n : undefined;
  }
  return NUMBER_WORDS[word];
}

/** Any cell or JSON value as text (objects as JSON, never "[object Object]"). */
export function str(v: unknown, fallback = ""): string {
  if (v === null || v === undefined) return fallback;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return JSON.stringify(v) ?? fallback;
}

/** Formats a number for prose: thousands separators, at most 3 significant decimals. */
export function fmt(v: unknown): string {
  if (typeof v !== "number" || !Number.isFinite(v)) return str(v, "—");
  if (Number.isInteger(v) && Math.abs(v) >= 1000 && Math.abs(v) < 1e15) return v.toLocaleString("en-US");
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  return Number(v.toFixed(digits)).toLocaleString("en-US", { maximumFractionDigits: digits });
}
