import type { Logger } from "../log.js";
import type { RedisLink } from "./redis-link.js";

const MEMBERS = "textide:instances";
const aliveKey = (id: string): string => `textide:instance:${id}`;

export interface LivenessOptions {
  /** How often this instance renews its key and looks for instances whose key expired (ms). */
  everyMs?: number;
  /** Called once, on one survivor, for each instance that stopped renewing its key. */
  onGone: (instanceId: string) => Promise<void> | void;
}

/**
 * A key per instance in Redis that expires unless renewed (the heartbeat), and the set of instances that
 * announced themselves. An instance whose key expired while it is still in the set died without a clean
 * stop; the survivor whose `SREM` removes it (atomic: exactly one does) reports it.
 */
export function startLiveness(
  link: RedisLink,
  instanceId: string,
  log: Logger,
  opts: LivenessOptions,
): {
  stop(): Promise<void>;
} {
  const everyMs = opts.everyMs ?? 2000;
  const ttlMs = everyMs * 3;
  // After Redis was away, every key may have expired; give the others time to renew before judging them.
  let judgeAfter = Date.now() + ttlMs;
  let busy = false;

  const beat = async (): Promise<void> => {
    if (!link.up || busy) return;
    busy = true;
    try {
      await link.pub.set(aliveKey(instanceId), String(Date.now()), { PX: ttlMs });
      await link.pub.sAdd(MEMBERS, instanceId);
      if (Date.now() < judgeAfter) return;
      for (const other of await link.pub.sMembers(MEMBERS)) {
        if (other === instanceId || (await link.pub.exists(aliveKey(other))) === 1) continue;
        if ((await link.pub.sRem(MEMBERS, other)) !== 1) continue;
        log.warn(`instance ${other} stopped answering: its runs are marked interrupted`, { instance: other });
        await opts.onGone(other);
      }
    } catch (err) {
      log.warn("instance heartbeat failed", { err: String(err) });
    } finally {
      busy = false;
    }
  };
  const stopListening = link.onChange((up) => {
    if (up) {
      judgeAfter = Date.now() + ttlMs;
      void beat();
    }
  });
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  void beat();

  return {
    async stop() {
      clearInterval(timer);
      stopListening();
      // A clean stop leaves the set, so that nobody reports this instance as dead.
      if (link.up) {
        await Promise.all([link.pub.sRem(MEMBERS, instanceId), link.pub.del(aliveKey(instanceId))]).catch(
          () => undefined,
        );
      }
    },
  };
}
