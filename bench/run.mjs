// Benchmark runner: loads bench/suites/*.mjs, runs them in order, prints each table and
// rewrites docs/BENCHMARKS.md from this run's results (with --only: just those suites' sections).
//
//   node bench/run.mjs [--only <suite>]... [--quick]
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { machineInfo } from "./lib/machine.mjs";
import { consoleTable, markdownReport, mergeReport } from "./lib/report.mjs";
import { now } from "./lib/timing.mjs";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(benchDir);
const docPath = path.join(repoRoot, "docs", "BENCHMARKS.md");

const { values: opts } = parseArgs({
  options: {
    only: { type: "string", multiple: true },
    quick: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

async function loadSuites() {
  const files = (await readdir(path.join(benchDir, "suites"))).filter((f) => f.endsWith(".mjs")).sort();
  const suites = [];
  for (const f of files) {
    const mod = await import(pathToFileURL(path.join(benchDir, "suites", f)).href);
    if (typeof mod.name !== "string" || typeof mod.run !== "function") {
      throw new Error(`bench/suites/${f} must export \`name\` and \`async run(ctx)\``);
    }
    suites.push(mod);
  }
  return suites;
}

/** The command as the user typed it, so the report says how to reproduce it. */
function commandLine() {
  const args = process.argv.slice(2).join(" ");
  if (process.env.npm_lifecycle_event === "bench") return `npm run bench${args ? ` -- ${args}` : ""}`;
  return `node bench/run.mjs${args ? ` ${args}` : ""}`;
}

async function main() {
  const all = await loadSuites();
  if (opts.help) {
    console.log(`Usage: npm run bench -- [--only <suite>]... [--quick]\nSuites: ${all.map((s) => s.name).join(", ")}`);
    return 0;
  }
  const unknown = (opts.only ?? []).filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) {
    console.error(`Unknown suite(s): ${unknown.join(", ")}. Available: ${all.map((s) => s.name).join(", ")}`);
    return 2;
  }
  const suites = opts.only ? all.filter((s) => opts.only.includes(s.name)) : all;

  const started = now();
  const date = new Date();
  const machine = machineInfo();
  console.log(
    `textide bench: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}${opts.quick ? " (quick)" : ""}`,
  );

  const results = [];
  for (const suite of suites) {
    const result = { name: suite.name, description: suite.description, rows: [], notes: [], durationMs: 0 };
    const ctx = {
      quick: opts.quick,
      repoRoot,
      log: (msg) => console.log(`  [${suite.name}] ${msg}`),
      note: (msg) => result.notes.push(msg),
    };
    console.log(`\n▶ ${suite.name}`);
    const t0 = now();
    try {
      result.rows = await suite.run(ctx);
    } catch (err) {
      // One broken suite should not cost the others' numbers; it is reported and fails the run.
      result.error = err?.stack ?? String(err);
      console.error(`  [${suite.name}] FAILED: ${result.error}`);
    }
    result.durationMs = now() - t0;
    results.push(result);
    if (result.rows.length > 0) console.log(`\n${consoleTable(result)}`);
    for (const n of result.notes) console.log(`  • ${n}`);
    console.log(`  (${(result.durationMs / 1000).toFixed(1)} s)`);
  }

  const totalMs = now() - started;
  const report = { date, machine, command: commandLine(), totalMs, quick: opts.quick, results };
  // A run of only some suites replaces their sections and keeps everyone else's numbers.
  const existing = opts.only ? await readFile(docPath, "utf8").catch(() => undefined) : undefined;
  await writeFile(docPath, existing ? mergeReport(existing, report) : markdownReport(report));
  const misses = results.flatMap((r) =>
    r.rows.filter((row) => row.pass === false).map((row) => `${r.name}: ${row.metric}`),
  );
  console.log(`\nWrote ${path.relative(process.cwd(), docPath)} in ${(totalMs / 1000).toFixed(1)} s.`);
  if (misses.length > 0) console.log(`Targets missed (${misses.length}):\n${misses.map((m) => `  - ${m}`).join("\n")}`);
  // Missed targets are results, not harness failures; only a crashed suite fails the run.
  return results.some((r) => r.error) ? 1 : 0;
}

process.exitCode = await main();
