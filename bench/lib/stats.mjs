// Summary statistics for latency samples (milliseconds).

/**
 * Percentile by linear interpolation between closest ranks (Hyndman & Fan type 7, the
 * default of numpy and R). Unlike nearest-rank it is stable for small sample counts: the
 * p99 of 20 samples is an interpolation near the maximum, not "the maximum or not".
 */
export function percentile(samples, p) {
  if (samples.length === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export const p50 = (samples) => percentile(samples, 0.5);
export const p99 = (samples) => percentile(samples, 0.99);
