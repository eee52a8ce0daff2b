// Timing helpers. All durations are milliseconds from performance.now() (monotonic).
import { spawn } from "node:child_process";

export const now = () => performance.now();

/** Runs `fn` and returns [elapsedMs, result]. */
export async function timed(fn) {
  const t0 = now();
  const result = await fn();
  return [now() - t0, result];
}

/** `n` sequential runs of `fn(i)`; returns per-run durations. */
export async function sampleSequential(n, fn) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await fn(i);
    samples.push(now() - t0);
  }
  return samples;
}

/**
 * `n` calls of `fn(i)` with `concurrency` in flight (a pool, not batches: a slow call does
 * not stall the others). Returns per-call durations and the wall time of the whole run,
 * since throughput under concurrency is n / wall, not n / sum(latencies).
 */
export async function samplePool(n, concurrency, fn) {
  const samples = new Array(n);
  let next = 0;
  const t0 = now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const s = now();
      await fn(i);
      samples[i] = now() - s;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return { samples, wallMs: now() - t0 };
}

/** Spawns a command and resolves with its stdout and the time from spawn to exit. */
export function timeCommand(cmd, args) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = now() - t0;
      const stdout = Buffer.concat(out).toString();
      if (code !== 0 && code !== 1) reject(new Error(`${cmd} exited ${code}: ${Buffer.concat(err)}`));
      else resolve({ ms, stdout, code });
    });
  });
}
