// Deterministic synthetic project tree: the same seed gives the same names and bytes on
// every machine, so runs are comparable and hit counts are known in advance.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

const TOP = [
  "apps",
  "assets",
  "build",
  "config",
  "data",
  "docs",
  "examples",
  "fixtures",
  "lib",
  "locales",
  "media",
  "models",
  "notebooks",
  "packages",
  "reports",
  "scripts",
  "services",
  "src",
  "tests",
  "tools",
];
const SUB = ["core", "alpha", "beta", "legacy", "shared", "ui", "io", "math", "net", "util"];
const ADJ = [
  "old",
  "new",
  "draft",
  "final",
  "raw",
  "clean",
  "daily",
  "weekly",
  "north",
  "south",
  "quick",
  "large",
  "tiny",
  "main",
  "spare",
  "empty",
  "dense",
  "sparse",
  "local",
  "remote",
];
const NOUN = [
  "report",
  "config",
  "index",
  "parser",
  "chart",
  "table",
  "summary",
  "invoice",
  "planet",
  "orbit",
  "sensor",
  "query",
  "cache",
  "schema",
  "layout",
  "theme",
  "widget",
  "model",
  "vector",
  "ledger",
  "budget",
  "survey",
  "sample",
  "matrix",
  "batch",
  "export",
  "import",
  "notes",
  "readme",
  "helper",
];
const EXT = ["txt", "md", "csv", "json", "ts", "log", "yaml", "py"];
const WORDS = [...ADJ, ...NOUN, "the", "a", "of", "and", "to", "in", "value", "row", "total", "id"];

export const NEEDLE = "needle";
/** How many of the 20,000 small files get "needle" in their name: a realistic handful. */
const NEEDLE_FILES = 24;
export const BIG_DIR = "bulk/entries";
export const BIG_DIR_ENTRIES = 1000;
export const BIG_FILE = "large/big-5mib.log";
export const BIG_FILE_BYTES = 5 * 1024 * 1024;

/** mulberry32: tiny, seedable, good enough to vary names and sizes. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (r, list) => list[Math.floor(r() * list.length)];

function textOf(r, bytes) {
  let s = "";
  while (s.length < bytes) {
    let line = "";
    const words = 4 + Math.floor(r() * 10);
    for (let w = 0; w < words; w++) line += (w ? " " : "") + pick(r, WORDS);
    s += `${line}\n`;
  }
  return s.slice(0, bytes - 1) + "\n";
}

/** Writes `jobs` (async thunks) with a bounded number in flight, to keep fd use sane. */
async function runPool(jobs, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Builds the tree under `root` (which must exist and be empty): TOP × SUB × filesPerDir small
 * text files, one BIG_DIR_ENTRIES-entry directory and one BIG_FILE_BYTES text file.
 */
export async function generateTree(root, { seed = 20260831, filesPerDir = 100 } = {}) {
  const r = rng(seed);
  const total = TOP.length * SUB.length * filesPerDir;
  const needleAt = new Set();
  while (needleAt.size < Math.min(NEEDLE_FILES, total)) needleAt.add(Math.floor(r() * total));

  const files = [];
  const jobs = [];
  let i = 0;
  for (const top of TOP) {
    for (const sub of SUB) {
      const dir = path.join(top, sub);
      await mkdir(path.join(root, dir), { recursive: true });
      for (let f = 0; f < filesPerDir; f++, i++) {
        // The index keeps names unique; the needle goes in different name positions.
        const base = needleAt.has(i)
          ? pick(r, [`${NEEDLE}-${pick(r, NOUN)}`, `${pick(r, ADJ)}-${NEEDLE}`, `hay${NEEDLE}s`])
          : `${pick(r, ADJ)}-${pick(r, NOUN)}`;
        const rel = `${dir}/${base}-${f}.${pick(r, EXT)}`;
        const text = textOf(r, 200 + Math.floor(r() * 1800));
        files.push(rel);
        jobs.push(() => writeFile(path.join(root, rel), text));
      }
    }
  }
  await mkdir(path.join(root, BIG_DIR), { recursive: true });
  for (let e = 0; e < BIG_DIR_ENTRIES; e++) {
    const text = textOf(r, 100 + Math.floor(r() * 400));
    jobs.push(() => writeFile(path.join(root, BIG_DIR, `entry-${String(e).padStart(4, "0")}.txt`), text));
  }
  await mkdir(path.join(root, path.dirname(BIG_FILE)), { recursive: true });
  jobs.push(() => writeFile(path.join(root, BIG_FILE), textOf(r, BIG_FILE_BYTES)));
  await runPool(jobs, 64);

  return { root, files, needleCount: needleAt.size, fileCount: jobs.length };
}
