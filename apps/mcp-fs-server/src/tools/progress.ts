import type { ServerContext } from "@modelcontextprotocol/server";

/**
 * Reports how far a long call has got: `progress` must grow from one report to the next (a report
 * that does not is dropped, as the spec asks), `total` when it is known, `message` for people.
 * A `force`d report (a change of stage, the last count) is sent even right after another one. Await
 * the last report before returning, so that it reaches the client ahead of the result.
 */
export type Progress = (progress: number, total?: number, message?: string, force?: boolean) => Promise<void>;

/** Reports closer together than this are dropped: a client redraws a bar, it does not need every file. */
const MIN_INTERVAL_MS = 100;

const NO_PROGRESS: Progress = () => Promise.resolve();

/**
 * The progress reporter of one request: a no-op unless the client sent `_meta.progressToken`.
 * Every tool handler gets one from `defineTool`; a send that fails (the client left) is ignored,
 * the call itself goes on and its result decides.
 */
export function progressFor(req: ServerContext): Progress {
  const token = req.mcpReq._meta?.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return NO_PROGRESS;
  let last = -Infinity;
  let sentAt = -Infinity;
  // Sends go out one after another, and every call resolves only once all earlier sends are out: a
  // dropped last report must still wait for the one in flight, or the result could overtake it.
  let sent: Promise<void> = Promise.resolve();
  return (progress, total, message, force = false) => {
    const now = performance.now();
    if (!(progress > last) || (!force && now - sentAt < MIN_INTERVAL_MS)) return sent;
    last = progress;
    sentAt = now;
    const params = {
      progressToken: token,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    };
    sent = sent.then(() => req.mcpReq.notify({ method: "notifications/progress", params }).catch(() => undefined));
    return sent;
  };
}
