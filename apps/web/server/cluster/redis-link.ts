import { createClient, type RedisClientType } from "redis";
import type { Logger } from "../log.js";

/** The two Redis connections of an instance (socket.io's adapter needs one for publishing, one subscribed). */
export interface RedisLink {
  readonly pub: RedisClientType;
  readonly sub: RedisClientType;
  /** Both connections are ready; while false, nothing is published (see `dropWhileDown`). */
  readonly up: boolean;
  /** Called on every change of `up`. */
  onChange(listener: (up: boolean) => void): () => void;
  close(): Promise<void>;
}

/** The URL without its password, for log lines. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(invalid REDIS_URL)";
  }
}

/**
 * Connects to Redis and keeps reconnecting (every 0.2–2 s) for as long as the instance runs. The instance
 * does not wait for Redis: it serves its own windows from the start and joins the others once Redis answers.
 * One log line when Redis goes away and one when it is back, not one per retry.
 */
export function connectRedis(url: string, log: Logger): RedisLink {
  const options = {
    url,
    socket: { reconnectStrategy: (retries: number) => Math.min(200 * (retries + 1), 2000), connectTimeout: 3000 },
  };
  const pub = createClient(options) as RedisClientType;
  const sub = pub.duplicate() as RedisClientType;
  const listeners = new Set<(up: boolean) => void>();
  const where = redactUrl(url);
  let up = false;
  let everUp = false;
  let closed = false;
  let lastError = "";

  const update = (): void => {
    const now = !closed && pub.isReady && sub.isReady;
    if (now === up) return;
    up = now;
    if (up) {
      log.info(
        everUp
          ? `Redis at ${where} is back: events, Stop and approvals reach the other instances again`
          : `Redis at ${where} connected: events reach the windows of every instance`,
      );
      everUp = true;
    } else if (!closed) {
      log.error(
        `Redis at ${where} is unreachable (${lastError || "connection lost"}): this instance keeps serving its own windows, but their events, Stop and approvals no longer reach the other instances; retrying`,
      );
    }
    for (const l of listeners) l(up);
  };
  for (const client of [pub, sub]) {
    // Without an "error" listener node-redis would throw and end the process.
    client.on("error", (err: Error) => {
      lastError = err.message || err.name;
      update();
    });
    client.on("ready", update);
    client.on("end", update);
    client.on("reconnecting", update);
  }
  const connecting = Promise.all([pub.connect(), sub.connect()]).catch((err: unknown) => {
    lastError = String(err);
    update();
  });
  // A first attempt that fails says so at once rather than after the first retry.
  const firstTry = setTimeout(() => {
    if (!up && !closed) {
      log.error(
        `Redis at ${where} is not reachable yet (${lastError || "no answer"}): serving this instance's windows only until it is`,
      );
    }
  }, 3000);
  firstTry.unref();

  return {
    pub,
    sub,
    get up() {
      return up;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(firstTry);
      up = false;
      await connecting;
      await Promise.all([pub, sub].map((c) => (c.isOpen ? c.close() : Promise.resolve()).catch(() => undefined)));
    },
  };
}

/**
 * The publishing client as socket.io's adapter sees it: while Redis is down, a publish is dropped instead of
 * waiting in node-redis' offline queue, which would deliver minutes-old events once Redis returns (and grow
 * without bound meanwhile).
 */
export function dropWhileDown(link: RedisLink): RedisClientType {
  const { pub } = link;
  return new Proxy(pub, {
    get(target, prop, receiver) {
      if (prop === "publish" || prop === "PUBLISH") {
        return (...args: Parameters<RedisClientType["publish"]>) =>
          link.up ? target.publish(...args) : Promise.resolve(0);
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
