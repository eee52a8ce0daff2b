import { createHash } from "node:crypto";

/*
 * Results of the runner's pure, costly host work — parsing a table file, drawing a chart — kept by
 * the content they were computed from, so the same file or the same chart asked for again is not
 * parsed or drawn again. The key is a hash of the whole input (the file's bytes, the whole spec), so
 * a hit gives exactly what the work would give; only the work is saved, never a read or a write:
 * files are still read and checked on every call, and a chart is still written on every call.
 * Values are shared between hits and must not be changed by their users.
 */

/** A least-recently-used map bounded in entries and in total weight (bytes, cells: whatever the user counts). */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    // Re-inserting moves the entry to the young end of the map's order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** Keeps `value` unless it alone weighs more than the budget; evicts the least recently used to make room. */
  set(key: string, value: V, weight: number): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.weight -= old.weight;
    }
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.weight <= this.maxWeight) break;
      this.entries.delete(k);
      this.weight -= e.weight;
    }
  }
}

/** SHA-256 of the parts, each length-prefixed so that no two different lists of parts share a key. */
export function contentKey(...parts: (string | Uint8Array)[]): string {
  const h = createHash("sha256");
  for (const p of parts) {
    const bytes = typeof p === "string" ? Buffer.from(p, "utf8") : p;
    h.update(`${bytes.byteLength}:`);
    h.update(bytes);
  }
  return h.digest("hex");
}
