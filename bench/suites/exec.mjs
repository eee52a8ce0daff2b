// exec: textide's `exec_run_js` (isolated-vm in a warm runner) through MCP, against the tool a
// user would otherwise reach for to chart a spreadsheet: python3 + matplotlib in a subprocess.
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { connectStdio, assertTools, closeHard, sandboxOf, peakRssBytes } from "../lib/mcp.mjs";
import { pythonRows } from "../lib/exec-python.mjs";
import { ensurePythonCharting, PYTHON } from "../lib/python.mjs";
import { p50, p99 } from "../lib/stats.mjs";
import { gate, info } from "../lib/rows.mjs";
import { now, sampleSequential, timeCommand } from "../lib/timing.mjs";

export const name = "exec";
export const description =
  "textide's `exec_run_js` tool (JavaScript in an isolated-vm sandbox inside a warm runner child of " +
  "`apps/mcp-fs-server`, stdio, SDK v2 client) on a temp copy of `project_root`: a trivial call, the " +
  "planets pie chart from `data/planets.xlsx` rendered to PNG, and the first call of a fresh server; " +
  "the anchor is the same chart made by `python3` + matplotlib in a subprocess (`bench/python/planets_pie.py`). " +
  "`exec_run_python` makes that chart with the anchor's own code in a warm sandbox, measured in the same run.";

const FULL = { warmup: 20, trivial: 200, chartWarmup: 3, charts: 30, spawns: 5, python: 10, parallel: 10 };
const QUICK = { warmup: 5, trivial: 50, chartWarmup: 1, charts: 10, spawns: 2, python: 3, parallel: 4 };
const KB = 1024;
const TRIVIAL = "return 1 + 1";
const CHART_NAME = "bench-planets-pie";
const TOP5 = ["Jupiter", "Saturn", "Uranus", "Neptune", "Earth"];
// The tool description's own example, as a model would send it: read, sort, chart, return.
const CHART_CODE = `const rows = await readTable("data/planets.xlsx");
const top = rows.sort((a, b) => b["Diameter (km)"] - a["Diameter (km)"]).slice(0, 5);
const out = await chart({
  title: "Largest planets by diameter",
  data: { values: top },
  mark: { type: "arc" },
  encoding: {
    theta: { field: "Diameter (km)", type: "quantitative" },
    color: { field: "Planet", type: "nominal" },
  },
}, "${CHART_NAME}", { format: "png" });
return { ...out, planets: top.map((r) => r.Planet) };`;

export async function run(ctx) {
  const n = ctx.quick ? QUICK : FULL;
  const pyVersion = ensurePythonCharting(ctx.log);
  const tmp = await mkdtemp(path.join(os.tmpdir(), "textide-bench-exec-"));
  try {
    // A copy, so generated files and the server's writes never touch the repo's project_root.
    const root = path.join(tmp, "root");
    const assets = path.join(tmp, "assets");
    await cp(path.join(ctx.repoRoot, "project_root"), root, { recursive: true });
    await mkdir(assets);
    const server = textideServer(ctx.repoRoot, root, assets, path.join(tmp, "audit", "exec-audit.jsonl"));
    const xlsx = path.join(root, "data", "planets.xlsx");

    const warm = await warmSession(ctx, server, assets, n);
    const cold = await coldCalls(ctx, server, n);
    const py = await pythonAnchor(ctx, xlsx, path.join(tmp, "python-pie.png"), n);
    const auditLog = path.join(tmp, "audit", "exec-audit-py.jsonl");
    const python = await pythonRows(ctx, { repoRoot: ctx.repoRoot, root, assets, auditLog, anchorMs: py.ms, n });

    const chartP50 = p50(warm.chart);
    ctx.note(
      `Server: ${server.version}, runner sandbox: ${warm.sandbox} (from its "exec_run_js enabled" log line); ` +
        `anchor: ${pyVersion} (\`${PYTHON}\`, Agg backend).`,
    );
    ctx.note(
      `Every chart call is checked: ok, outputs = one PNG > 10 KB that exists on disk (deleted before each call), ` +
        `top 5 = ${TOP5.join(", ")}. textide PNG ${fmtKB(warm.pngBytes)}, ${2 * warm.width}×${2 * warm.height} px ` +
        `(the chart's ${warm.width}×${warm.height} at 2×); matplotlib PNG ${fmtKB(py.bytes)}, ${py.size} px (defaults). ` +
        `Every python run exits 0 and writes its PNG.`,
    );
    ctx.note(
      `Warm = after ${n.warmup} trivial and ${n.chartWarmup} chart calls not counted; the very first chart call in ` +
        `the warm server took ${warm.firstChartMs.toFixed(0)} ms. Python had 1 uncounted run first, so both sides ` +
        `read from a warm page cache; each python run is timed from spawn to exit, imports included.`,
    );
    ctx.note(
      "Latencies are per tools/call round trip as the client sees them; `durationMs` is what the server reports " +
        "for the run itself. Cold = a fresh server per spawn; its first call is made right after initialize, so it " +
        "may wait for the runner to finish starting.",
    );

    return [
      gate(
        `warm trivial call \`${TRIVIAL}\`, p50 (n=${n.trivial})`,
        p50(warm.trivial),
        "ms",
        "≤ 10 ms",
        (x) => x <= 10,
      ),
      info("  latency p99", p99(warm.trivial), "ms"),
      info("  server-reported durationMs, p50", p50(warm.trivialServer), "ms"),
      gate(`planets pie chart → PNG, end to end, p50 (n=${n.charts})`, chartP50, "ms", "≤ 150 ms", (x) => x <= 150),
      info("  latency p99", p99(warm.chart), "ms"),
      info("  server-reported durationMs, p50", p50(warm.chartServer), "ms"),
      {
        metric: `planets pie chart vs python3 + matplotlib subprocess, p50 (n=${n.charts} vs ${n.python})`,
        textide: chartP50,
        anchor: p50(py.ms),
        unit: "ms",
        ratio: chartP50 / p50(py.ms),
        target: "≤ 0.2× (≥ 5× faster)",
        pass: chartP50 / p50(py.ms) <= 0.2,
      },
      info(`cold first call after initialize, p50 (n=${n.spawns})`, p50(cold.first), "ms"),
      info("  spawn → first result, p50", p50(cold.total), "ms"),
      info("  spawn + initialize, p50", p50(cold.init), "ms"),
      info("peak RSS of the warm server (VmHWM, runner not included)", warm.rss / (KB * KB), "MiB"),
      { metric: "runner sandbox", textide: warm.sandbox, pass: null },
      ...python,
    ];
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const fmtKB = (b) => `${(b / KB).toFixed(1)} KB`;

function textideServer(repoRoot, root, assets, auditLog) {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "apps/mcp-fs-server/package.json"), "utf8"));
  return {
    label: "textide",
    version: `${pkg.name}@${pkg.version}`,
    command: process.execPath,
    // The audit log lives in the temp dir but outside both roots: the server refuses it inside.
    args: [
      path.join(repoRoot, "apps/mcp-fs-server/dist/index.js"),
      ...["--root", root, "--assets", assets, "--audit-log", auditLog],
    ],
  };
}

async function runJs(s, code) {
  const res = await s.call("exec_run_js", { code });
  const sc = res.structuredContent;
  if (!sc?.ok) throw new Error(`exec_run_js failed: ${JSON.stringify(sc?.error ?? res.content)}`);
  return sc;
}

/** One warm session: trivial calls, then chart calls, each verified. */
async function warmSession(ctx, server, assets, n) {
  const s = await connectStdio(server);
  try {
    await assertTools(s, ["exec_run_js"]);
    const sandbox = await sandboxOf(s, "exec_run_js enabled");
    ctx.log(`${server.version}: runner sandbox ${sandbox}`);

    const checkTrivial = (sc) => {
      if (sc.result !== 2) throw new Error(`\`${TRIVIAL}\` returned ${JSON.stringify(sc.result)}`);
      return sc;
    };
    for (let i = 0; i < n.warmup; i++) checkTrivial(await runJs(s, TRIVIAL));
    const trivialServer = [];
    const trivial = await sampleSequential(n.trivial, async () => {
      trivialServer.push(checkTrivial(await runJs(s, TRIVIAL)).durationMs);
    });
    ctx.log(`trivial: p50 ${p50(trivial).toFixed(2)} ms, p99 ${p99(trivial).toFixed(2)} ms`);

    const png = path.join(assets, `${CHART_NAME}.png`);
    let last;
    // Deleting the PNG first (untimed) proves each call wrote it rather than a previous one.
    const chartCall = async () => {
      await rm(png, { force: true });
      const t0 = now();
      const sc = await runJs(s, CHART_CODE);
      const ms = now() - t0;
      last = await checkChart(sc, png);
      return ms;
    };
    const firstChartMs = await chartCall();
    for (let i = 1; i < n.chartWarmup; i++) await chartCall();
    const chart = [];
    const chartServer = [];
    for (let i = 0; i < n.charts; i++) {
      chart.push(await chartCall());
      chartServer.push(last.durationMs);
    }
    ctx.log(
      `chart: p50 ${p50(chart).toFixed(1)} ms, p99 ${p99(chart).toFixed(1)} ms (first ${firstChartMs.toFixed(0)} ms)`,
    );
    return { sandbox, trivial, trivialServer, chart, chartServer, firstChartMs, rss: peakRssBytes(s.pid), ...last };
  } finally {
    await closeHard(s);
  }
}

async function checkChart(sc, png) {
  const out = sc.outputs ?? [];
  const want = `generated_assets/${CHART_NAME}.png`;
  if (out.length !== 1 || out[0].path !== want || out[0].mime !== "image/png") {
    throw new Error(`chart outputs ${JSON.stringify(out)}, expected one image/png at ${want}`);
  }
  const bytes = (await stat(png).catch(() => undefined))?.size;
  if (bytes === undefined) throw new Error(`chart reported ${want} but ${png} does not exist`);
  if (bytes <= 10 * KB || bytes !== out[0].bytes) {
    throw new Error(`chart PNG is ${bytes} bytes on disk, ${out[0].bytes} reported; expected equal and > 10 KB`);
  }
  const planets = sc.result?.planets ?? [];
  if (planets.join() !== TOP5.join()) throw new Error(`chart top 5 ${planets.join()}, expected ${TOP5.join()}`);
  return { durationMs: sc.durationMs, pngBytes: bytes, width: sc.result.width, height: sc.result.height };
}

/** A fresh server per spawn; its first trivial call goes out right after initialize. */
async function coldCalls(ctx, server, n) {
  const first = [];
  const total = [];
  const init = [];
  for (let i = 0; i < n.spawns; i++) {
    const t0 = now();
    const s = await connectStdio(server);
    try {
      const t1 = now();
      const sc = await runJs(s, TRIVIAL);
      const t2 = now();
      if (sc.result !== 2) throw new Error(`cold \`${TRIVIAL}\` returned ${JSON.stringify(sc.result)}`);
      first.push(t2 - t1);
      total.push(t2 - t0);
      init.push(s.initMs);
    } finally {
      await closeHard(s);
    }
  }
  ctx.log(`cold: first call p50 ${p50(first).toFixed(0)} ms, spawn → first result p50 ${p50(total).toFixed(0)} ms`);
  return { first, total, init };
}

/** python3 + matplotlib per chart, spawn to exit; one uncounted run warms the page cache. */
async function pythonAnchor(ctx, xlsx, png, n) {
  const script = path.join(ctx.repoRoot, "bench/python/planets_pie.py");
  const once = async () => {
    await rm(png, { force: true });
    const r = await timeCommand(PYTHON, [script, xlsx, png]);
    // timeCommand accepts exit 1 (rg's "no match"); for python that is a failure.
    if (r.code !== 0) throw new Error(`${PYTHON} ${script} exited ${r.code}`);
    const bytes = (await stat(png).catch(() => undefined))?.size;
    if (!bytes) throw new Error(`${PYTHON} ${script} exited 0 but wrote no PNG at ${png}`);
    return { ms: r.ms, bytes };
  };
  await once();
  const runs = [];
  for (let i = 0; i < n.python; i++) runs.push(await once());
  const ms = runs.map((r) => r.ms);
  ctx.log(`python3 + matplotlib: p50 ${p50(ms).toFixed(0)} ms`);
  return { ms, bytes: runs.at(-1).bytes, size: pngSize(await readFile(png)) };
}

/** Width × height from a PNG's IHDR chunk, to report what each side drew. */
function pngSize(buf) {
  return `${buf.readUInt32BE(16)}×${buf.readUInt32BE(20)}`;
}
