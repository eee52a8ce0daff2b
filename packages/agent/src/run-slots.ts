/**
 * At most `size` holders at once; the others wait in the order they asked. A wait ends early, with the
 * signal's reason, when its signal aborts.
 */
export class RunSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  /** Resolves with the slot's release (call it once) when a slot is free. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free--;
    } else {
      await new Promise<void>((resolve, reject) => {
        const granted = (): void => {
          signal?.removeEventListener("abort", aborted);
          resolve();
        };
        const aborted = (): void => {
          this.waiting.splice(this.waiting.indexOf(granted), 1);
          const reason: unknown = signal!.reason;
          reject(reason instanceof Error ? reason : new Error(String(reason)));
        };
        this.waiting.push(granted);
        signal?.addEventListener("abort", aborted, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the first waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
