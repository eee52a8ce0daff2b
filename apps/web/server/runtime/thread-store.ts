import { isThreadStoreUnavailable, THREAD_DB_DOWN } from "@textide/agent";
import { isAppError, runtimeError } from "../errors.js";
import type { Logger } from "../log.js";

export { openThreadStore, type RunState, type StoredThread, type ThreadStore } from "@textide/agent";

/**
 * Runs store calls and turns connection failures into one clear `unavailable` error, logging one line per
 * outage (not one per request) and one when the database answers again.
 */
export function storeGuard(log: Logger, backend: string) {
  let down = false;
  const noteDown = (err: unknown): void => {
    if (down) return;
    down = true;
    log.error("thread database unreachable: requests that need it fail until it is back", {
      backend,
      err: String(err),
    });
  };
  return {
    /** Runs `work`; a connection failure becomes `unavailable:thread`, anything else passes through. */
    run: async <T>(work: () => Promise<T>): Promise<T> => {
      try {
        const value = await work();
        if (down) {
          down = false;
          log.info("thread database reachable again", { backend });
        }
        return value;
      } catch (err) {
        if (isAppError(err) || !isThreadStoreUnavailable(err)) throw err;
        noteDown(err);
        throw runtimeError("unavailable", "thread", THREAD_DB_DOWN, err);
      }
    },
    /** For failures outside a request (the pool's idle connections, a run's end): logged once per outage. */
    noteDown,
  };
}
