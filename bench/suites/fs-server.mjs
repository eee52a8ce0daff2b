// fs-server: textide's MCP file server against the reference server-filesystem, on one
// generated 21k-file tree, in the same run; ripgrep is the floor for name search.
import { readFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { connectStdio, assertTools, cpuTimeMs, peakRssBytes, waitForIdle } from "../lib/mcp.mjs";
import { textideAdapter, referenceAdapter } from "../lib/fs-adapters.mjs";
import { ensureRipgrep } from "../lib/ripgrep.mjs";
import { p50, p99 } from "../lib/stats.mjs";
import { now, samplePool, sampleSequential, timeCommand, timed } from "../lib/timing.mjs";
import { generateTree, BIG_DIR, BIG_DIR_ENTRIES, BIG_FILE, BIG_FILE_BYTES, NEEDLE } from "../lib/tree.mjs";

export const name = "fs-server";
export const description =
  "textide's `apps/mcp-fs-server` (stdio) against the reference `@modelcontextprotocol/server-filesystem` " +
  "(stdio), both driven by the SDK v2 client over the same generated tree (20 × 10 × 100 small text " +
  "files, a 1,000-entry directory, a 5 MiB text file) in the same run; the read rates in rounds that alternate between the servers.";

const FULL = {
  spawns: 10,
  warmup: 500,
  rounds: 6,
  seqReads: 1200,
  poolReads: 6000,
  inFlight: 16,
  lists: 20,
  searches: 10,
  rg: 10,
};
const QUICK = {
  spawns: 3,
  warmup: 50,
  rounds: 2,
  seqReads: 100,
  poolReads: 400,
  inFlight: 16,
  lists: 5,
  searches: 3,
  rg: 3,
};
const MiB = 1024 * 1024;

export async function run(ctx) {
  const n = ctx.quick ? QUICK : FULL;
  const loadAtStart = os.loadavg()[0].toFixed(1);
  const rgVersion = ensureRipgrep(ctx.log);
  const tmp = await mkdtemp(path.join(os.tmpdir(), "textide-bench-"));
  try {
    const treeRoot = path.join(tmp, "tree");
    const assetsRoot = path.join(tmp, "assets");
    await Promise.all([mkdir(treeRoot), mkdir(assetsRoot)]);
    const [genMs, tree] = await timed(() => generateTree(treeRoot));
    // The new tree's dirty pages would otherwise be written back during the first measurements.
    execFileSync("sync");
    ctx.log(`generated ${tree.fileCount.toLocaleString("en-US")} files in ${(genMs / 1000).toFixed(1)} s under ${tmp}`);

    const servers = [textideAdapter(ctx.repoRoot, treeRoot, assetsRoot), referenceAdapter(treeRoot)];
    for (const a of servers) {
      const s = await connectStdio(a);
      try {
        const names = await assertTools(s, a.tools);
        ctx.log(`${a.version}: ${names.length} tools (${names.join(", ")})`);
      } finally {
        await s.close();
      }
    }

    // Start-up as a host sees it before it can offer a server's tools: spawn → initialize → tools/list.
    // Spawns alternate between the servers so drift (thermal, cache, other load) hits both alike.
    const init = Object.fromEntries(servers.map((a) => [a.label, []]));
    for (let i = 0; i < n.spawns; i++) {
      for (const a of servers) {
        const t0 = now();
        const s = await connectStdio(a);
        await s.client.listTools();
        init[a.label].push(now() - t0);
        await s.close();
      }
    }

    const sessions = [];
    const m = {};
    try {
      for (const a of servers) sessions.push({ a, s: await connectStdio(a) });
      const rates = await readRates(ctx, sessions, tree, n);
      for (const { a, s } of sessions) m[a.label] = { ...rates[a.label], ...(await workload(ctx, a, s, n)) };
    } finally {
      await Promise.all(sessions.map(({ s }) => s.close()));
    }
    const bigFile = await readFile(path.join(treeRoot, BIG_FILE), "utf8");
    for (const a of servers) m[a.label].big.ok = m[a.label].big.text === bigFile;

    await timeCommand("rg", ["--files", "-g", `*${NEEDLE}*`, treeRoot]); // warm-up, not counted
    const rgRuns = [];
    for (let i = 0; i < n.rg; i++) rgRuns.push(await timeCommand("rg", ["--files", "-g", `*${NEEDLE}*`, treeRoot]));
    const rgHits = rgRuns[0].stdout.split("\n").filter(Boolean).length;
    const rgP50 = p50(rgRuns.map((r) => r.ms));

    const t = m.textide;
    const r = m.reference;
    ctx.note(`Servers: ${servers.map((a) => a.version).join(" vs ")} (anchor); floor: ${rgVersion}.`);
    ctx.note(
      `Load: ${os.cpus().length} cores, 1-minute load average ${loadAtStart} at the start of the run (this suite's own ` +
        "processes add to it). Other work on the machine inflates absolute times; the ratios, taken in alternating " +
        "rounds, are what to read.",
    );
    ctx.note(
      `Tree: ${tree.fileCount.toLocaleString("en-US")} files; name search for "${NEEDLE}" (textide \`query: "${NEEDLE}"\`, ` +
        `reference \`pattern: "**/*${NEEDLE}*"\`, rg \`-g '*${NEEDLE}*'\`) hits: textide ${t.hits}, reference ${r.hits}, ` +
        `rg ${rgHits}, generated ${tree.needleCount}.`,
    );
    ctx.note(`5 MiB read: textide ${describeBig(t.big)}; reference ${describeBig(r.big)}.`);
    ctx.note(
      "Latencies are per tools/call round trip as the client sees them; reads/s is calls ÷ wall time. " +
        "Search and rg times include everything the caller waits for (rg: process spawn to exit).",
    );

    const floor = await sdkFloors(n);
    ctx.note(
      "SDK floor: the same client and load against a trivial one-tool server on each SDK (v2 under textide, " +
        "v1 under the reference), so the read rows can be read against what each SDK alone allows.",
    );
    const ratio = (a, b) => a / b;
    const rows = [
      gate(
        `spawn → initialize → tools/list, median (n=${n.spawns}, alternating)`,
        p50(init.textide),
        p50(init.reference),
        "ms",
        "≤ 1× (≤ anchor)",
        (x) => x <= 1,
      ),
      gate(
        `small-file reads, sequential (n=${n.seqReads})`,
        t.seqRate,
        r.seqRate,
        "reads/s",
        "≥ 1× (≥ anchor)",
        (x) => x >= 1,
      ),
      info("  latency p50", p50(t.seq), p50(r.seq), "ms"),
      info("  latency p99", p99(t.seq), p99(r.seq), "ms"),
      gate(
        `small-file reads, ${n.inFlight} in flight (n=${n.poolReads})`,
        t.poolRate,
        r.poolRate,
        "reads/s",
        "≥ 1× (≥ anchor)",
        (x) => x >= 1,
      ),
      info("  latency p50", p50(t.pool), p50(r.pool), "ms"),
      info("  latency p99", p99(t.pool), p99(r.pool), "ms"),
      info("  server CPU per read (user + sys)", t.cpuPerRead, r.cpuPerRead, "µs"),
      info(`  SDK floor: echo tool, ${n.inFlight} in flight (SDK v2 vs v1)`, floor.v2.rate, floor.v1.rate, "calls/s"),
      info("  SDK floor: server CPU per call (v2 vs v1)", floor.v2.cpu, floor.v1.cpu, "µs"),
      info(
        "  reads in flight as a share of the own SDK's floor",
        t.poolRate / floor.v2.rate,
        r.poolRate / floor.v1.rate,
        "×",
      ),
      info(
        `list ${BIG_DIR_ENTRIES.toLocaleString("en-US")}-entry directory, p50 (n=${n.lists})`,
        p50(t.list),
        p50(r.list),
        "ms",
      ),
      gate(
        `name search, whole tree, p50 (n=${n.searches})`,
        p50(t.search),
        p50(r.search),
        "ms",
        "≤ 0.1× (≥ 10× faster)",
        (x) => x <= 0.1,
      ),
      gate(
        `name search vs floor — anchor here is rg --files, p50 (n=${n.rg})`,
        p50(t.search),
        rgP50,
        "ms",
        "≤ 2× rg",
        (x) => x <= 2,
      ),
      {
        metric: "name search hits (anchor = reference; rg must agree)",
        textide: t.hits,
        anchor: r.hits,
        target: `equal (rg: ${rgHits})`,
        pass: t.hits === r.hits && t.hits === rgHits && t.hits > 0,
      },
      {
        metric: `read ${BIG_FILE_BYTES / MiB} MiB text file completely`,
        textide: bigCell(t.big),
        anchor: bigCell(r.big),
        target: "complete, no connection loss",
        pass: t.big.ok === true && !t.big.lost,
      },
      gate(
        "peak RSS (VmHWM) after reads, listing, search",
        t.rss / MiB,
        r.rss / MiB,
        "MiB",
        "≤ 1× (≤ anchor)",
        (x) => x <= 1,
      ),
      info(`  peak RSS incl. the ${BIG_FILE_BYTES / MiB} MiB read`, t.rssBig / MiB, r.rssBig / MiB, "MiB"),
    ];
    function info(metric, tv, av, unit) {
      return { metric, textide: tv, anchor: av, unit, ratio: ratio(tv, av), pass: null };
    }
    function gate(metric, tv, av, unit, target, ok) {
      const x = ratio(tv, av);
      return { metric, textide: tv, anchor: av, unit, ratio: x, target, pass: ok(x) };
    }
    return rows;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The read rates, measured in rounds that alternate between the two servers (and which goes first), so
 * drift on a shared machine (other load, background writeback, CPU frequency) hits both alike instead of
 * whichever server happens to run first. Each round reads the same files on both servers.
 */
async function readRates(ctx, sessions, tree, n) {
  // A fixed stride spreads reads over all directories; distinct files for seq and pool.
  const file = (i) => tree.files[(i * 7919) % tree.files.length];
  // The rates compare steady states: a warm-up lets both servers' JITs settle, then each server (with
  // whatever it started, like textide's sandbox runner) must go idle. Start-up is the spawn row's job.
  for (const { a, s } of sessions) for (let i = 0; i < n.warmup; i++) await a.read(s, file(tree.files.length - 1 - i));
  const idleMs = {};
  for (const { a, s } of sessions) {
    idleMs[a.label] = await waitForIdle(s.pid);
    ctx.log(`${a.label}: idle ${idleMs[a.label].toFixed(0)} ms after the warm-up`);
  }
  ctx.note(
    `Read rates are steady state: after ${n.warmup} warm-up reads, each server with every process it started ` +
      `had to use under 5 % of a core for 250 ms (waited: ${sessions.map(({ a }) => `${a.label} ${idleMs[a.label].toFixed(0)} ms`).join(", ")}); ` +
      `then ${n.rounds} rounds alternating the servers and which goes first.`,
  );

  const acc = new Map(sessions.map(({ a }) => [a.label, { seq: [], seqMs: 0, pool: [], poolMs: 0, cpuMs: 0 }]));
  const seqPer = n.seqReads / n.rounds;
  const poolPer = n.poolReads / n.rounds;
  for (let round = 0; round < n.rounds; round++) {
    const order = round % 2 === 0 ? sessions : [...sessions].reverse();
    for (const { a, s } of order) {
      const m = acc.get(a.label);
      const seqBase = round * seqPer;
      const t0 = now();
      m.seq.push(...(await sampleSequential(seqPer, (i) => a.read(s, file(seqBase + i)))));
      m.seqMs += now() - t0;
      const poolBase = n.seqReads + round * poolPer;
      const cpu0 = cpuTimeMs(s.pid);
      const pool = await samplePool(poolPer, n.inFlight, (i) => a.read(s, file(poolBase + i)));
      // Server CPU per call separates the server's own cost from the client and the pipe.
      m.cpuMs += cpuTimeMs(s.pid) - cpu0;
      m.pool.push(...pool.samples);
      m.poolMs += pool.wallMs;
    }
  }
  const out = {};
  for (const [label, m] of acc) {
    out[label] = {
      seq: m.seq,
      seqRate: n.seqReads / (m.seqMs / 1000),
      pool: m.pool,
      poolRate: n.poolReads / (m.poolMs / 1000),
      cpuPerRead: (m.cpuMs / n.poolReads) * 1000,
    };
    ctx.log(
      `${label}: ${out[label].seqRate.toFixed(0)} reads/s sequential, ${out[label].poolRate.toFixed(0)} reads/s with ${n.inFlight} in flight`,
    );
  }
  return out;
}

/** The session's other steady-state measurements after the reads, then the 5 MiB read last. */
async function workload(ctx, a, s, n) {
  try {
    const list = await sampleSequential(n.lists, async () => {
      const count = await a.list(s, BIG_DIR);
      if (count !== BIG_DIR_ENTRIES)
        throw new Error(`${a.label}: listed ${count} entries, expected ${BIG_DIR_ENTRIES}`);
    });
    let hits = 0;
    const search = await sampleSequential(n.searches, async () => {
      hits = await a.search(s, NEEDLE);
    });
    ctx.log(`${a.label}: list p50 ${p50(list).toFixed(1)} ms, search p50 ${p50(search).toFixed(1)} ms (${hits} hits)`);
    const rss = peakRssBytes(s.pid);

    const big = await readBig(s, a);
    ctx.log(`${a.label}: 5 MiB read ${describeBig(big)}`);
    return { list, search, hits, rss, rssBig: big.rss, big };
  } finally {
    await s.close();
    // A transport that died mid-call may leave its child behind; it is ours, so end it by pid.
    if (peakRssBytes(s.pid) !== undefined) {
      try {
        process.kill(s.pid, "SIGKILL");
      } catch {
        // Already gone between the check and the kill: nothing left to clean up.
      }
    }
  }
}

/**
 * The 5 MiB read, where the reference is known to lose its connection: that outcome is a
 * result to report, not an exception. VmHWM is polled because a lost connection kills the
 * process before it could be read afterwards.
 */
async function readBig(s, a) {
  let rss = peakRssBytes(s.pid);
  const poll = setInterval(() => (rss = peakRssBytes(s.pid) ?? rss), 10);
  const t0 = now();
  try {
    const { text, pages } = await a.readWhole(s, BIG_FILE);
    return {
      ms: now() - t0,
      text,
      pages,
      bytes: Buffer.byteLength(text),
      lost: s.state.closed,
      rss: peakRssBytes(s.pid) ?? rss,
    };
  } catch (err) {
    return { ms: now() - t0, error: String(err?.message ?? err).split("\n")[0], lost: s.state.closed, ok: false, rss };
  } finally {
    clearInterval(poll);
  }
}

function describeBig(b) {
  if (b.lost) return `connection lost after ${b.ms.toFixed(0)} ms (${b.error ?? "no error"})`;
  if (b.error) return `failed after ${b.ms.toFixed(0)} ms: ${b.error}`;
  return `${b.bytes.toLocaleString("en-US")} bytes in ${b.pages} call${b.pages === 1 ? "" : "s"}, ${b.ms.toFixed(0)} ms${b.ok === false ? ", CONTENT MISMATCH" : ""}`;
}

function bigCell(b) {
  if (b.lost) return "connection lost";
  if (b.error) return "error";
  if (b.ok === false) return "content mismatch";
  return `complete, ${b.pages} call${b.pages === 1 ? "" : "s"}, ${b.ms.toFixed(0)} ms`;
}

/** Calls/s and server CPU per call of a trivial echo tool on SDK v2 and v1, same client and load. */
async function sdkFloors(n) {
  const out = {};
  for (const [key, file] of [
    ["v2", "echo-sdk-v2.mjs"],
    ["v1", "echo-sdk-v1.mjs"],
  ]) {
    const s = await connectStdio({
      command: process.execPath,
      args: [path.join(import.meta.dirname, "../fixtures", file)],
      label: key,
    });
    try {
      const call = () => s.call("echo", { path: "x" });
      await sampleSequential(n.warmup, call);
      const cpu0 = cpuTimeMs(s.pid);
      const pool = await samplePool(n.poolReads, n.inFlight, call);
      out[key] = { rate: (n.poolReads / pool.wallMs) * 1000, cpu: ((cpuTimeMs(s.pid) - cpu0) * 1000) / n.poolReads };
    } finally {
      await s.close();
    }
  }
  return out;
}
