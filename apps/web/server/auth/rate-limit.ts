/**
 * Failed sign-ins per key (a user at an address, or an address), in memory: after `max` failures within
 * `windowMs` further tries are refused until the oldest failure leaves the window. Per instance: behind a
 * proxy spreading requests over N instances an attacker gets up to N × max tries per window.
 */
export class FailedSignIns {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max = 5,
    private readonly windowMs = 5 * 60_000,
  ) {}

  /** Milliseconds until `key` may try again, or 0 when it may now. */
  retryAfterMs(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.max) return 0;
    return (recent[recent.length - this.max] ?? now) + this.windowMs - now;
  }

  fail(key: string, now = Date.now()): void {
    this.failures.set(key, [...this.recent(key, now), now]);
    // Bounded memory: forget keys whose failures all left the window.
    if (this.failures.size > 10_000) {
      for (const k of this.failures.keys()) if (this.recent(k, now).length === 0) this.failures.delete(k);
    }
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs);
  }
}
