/** How many 2025-11-25 sessions may be open: per bearer token and over all tokens. */
export interface SessionLimits {
  perToken: number;
  total: number;
}

interface Entry<T> {
  value: T;
  token: string;
  lastSeen: number;
}

/**
 * Open sessions by id, in least-recently-used order (a Map keeps insertion order, and `touch`
 * re-inserts). Adding past a limit evicts the session idle the longest: a client that leaks
 * sessions (reconnects without DELETE) then recovers by itself, since an evicted session's next
 * request gets 404 and the spec has the client initialize again; refusing new sessions instead
 * would lock that client out until the idle reaper ran.
 */
export class SessionTable<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly perToken = new Map<string, number>();

  constructor(private readonly limits: SessionLimits) {
    if (!(limits.perToken >= 1 && limits.total >= 1)) throw new RangeError("session limits must be at least 1");
  }

  get size(): number {
    return this.entries.size;
  }

  /** Adds a session; returns the sessions evicted to make room, for the caller to close. */
  add(id: string, token: string, value: T, now = Date.now()): [string, T][] {
    const evicted: [string, T][] = [];
    while ((this.perToken.get(token) ?? 0) >= this.limits.perToken) evicted.push(this.evictOldest(token));
    while (this.entries.size >= this.limits.total) evicted.push(this.evictOldest());
    this.entries.set(id, { value, token, lastSeen: now });
    this.perToken.set(token, (this.perToken.get(token) ?? 0) + 1);
    return evicted;
  }

  /** The session, marked as just used. */
  touch(id: string, now = Date.now()): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    entry.lastSeen = now;
    this.entries.set(id, entry);
    return entry.value;
  }

  delete(id: string): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    const left = (this.perToken.get(entry.token) ?? 1) - 1;
    if (left > 0) this.perToken.set(entry.token, left);
    else this.perToken.delete(entry.token);
    return entry.value;
  }

  /** Removes and returns the sessions last used before `cutoff`. */
  takeIdle(cutoff: number): [string, T][] {
    const idle: [string, T][] = [];
    for (const [id, entry] of this.entries) {
      if (entry.lastSeen >= cutoff) break; // the rest were used more recently
      idle.push([id, entry.value]);
    }
    for (const [id] of idle) this.delete(id);
    return idle;
  }

  private evictOldest(token?: string): [string, T] {
    for (const [id, entry] of this.entries) {
      if (token === undefined || entry.token === token) {
        this.delete(id);
        return [id, entry.value];
      }
    }
    throw new Error("SessionTable: nothing to evict");
  }
}
