import { randomUUID } from "node:crypto";
import { createAdapter } from "@socket.io/redis-adapter";
import { SOCKET_EVENTS, type FileChangedEvent } from "@textide/shared";
import type { PathPolicy } from "@textide/shared/node";
import { runtimeError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Io } from "../socket/io.js";
import { ChangeDeduper, versionOf, type SharedChange } from "./file-fanout.js";
import { startLiveness } from "./liveness.js";
import { connectRedis, dropWhileDown, type RedisLink } from "./redis-link.js";

const FILES_CHANNEL = "textide:files";
/** File changes per Redis message at most. */
const PUBLISH_BATCH = 500;
/** socket.io server-side event: "cancel this run if it is yours". */
const CANCEL_EVENT = "textide:cancel";
/** How long an instance waits for the others' answers (socket.io's adapter gives up after 5 s itself). */
const ASK_MS = 5000;
/** A thread's run claim lapses this long after its instance stopped renewing it (crash, lost Redis). */
const THREAD_CLAIM_MS = 6000;
/** Renews / releases a claim only while it is still this claimant's (another may hold it after a lapse). */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;
/** Releases a claim only while a given instance holds it (its token starts with that instance's id). */
const RELEASE_OF = `local v = redis.call("get", KEYS[1]) if v and string.sub(v, 1, #ARGV[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;
const CLAIM_PREFIX = "textide:thread-run:";

export interface ClusterDeps {
  url: string;
  instanceId: string;
  log: Logger;
  /** Marks a dead instance's runs interrupted (the thread store's `markInterrupted`). */
  onInstanceGone?: (instanceId: string) => Promise<void> | void;
  heartbeatMs?: number;
}

/** What one instance of a team deployment shares with the others through Redis. */
export interface Cluster {
  readonly instanceId: string;
  /** Redis answers (the instance is joined to the others). */
  readonly connected: boolean;
  /**
   * Puts socket.io on the Redis adapter, so that `io.emit` and room emits reach every instance's windows.
   * `onRemoteChange` keeps this instance's state (quick open's index) current with the others' changes.
   */
  attach(io: Io, policy: PathPolicy, onRemoteChange: (e: FileChangedEvent) => void): void;
  /** A change this instance's watcher saw: to its windows and to the other instances, once per window. */
  fileChanged(event: FileChangedEvent): void;
  /** How many windows are connected to any instance (this instance's alone while Redis is down). */
  countWindows(): Promise<number>;
  /** Answers the other instances' Stop requests (a run and the user who clicked Stop) with `cancel`. */
  onCancelRequest(cancel: (runId: string, user: string) => boolean): void;
  /** Asks the other instances to stop `user`'s run that this one does not have; true when one of them had it. */
  cancelElsewhere(runId: string, user: string): Promise<boolean>;
  /**
   * Claims a thread for one run across instances (a new message or an approval's resume), until the returned
   * function gives it back. Throws `conflict:agent` (`conflict:approval` for an approval) while another
   * instance runs the thread.
   */
  claimThread(threadId: string, action: "run" | "approval"): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Connects to Redis (in the background: the instance serves its own windows meanwhile) and starts the heartbeat. */
export function startCluster(deps: ClusterDeps): Cluster {
  const { instanceId, log } = deps;
  const link: RedisLink = connectRedis(deps.url, log);
  const dedupe = new ChangeDeduper();
  let io: Io | undefined;
  let policy: PathPolicy | undefined;
  let onRemote: (e: FileChangedEvent) => void = () => undefined;
  let cancelHere: (runId: string, user: string) => boolean = () => false;
  let chain: Promise<void> = Promise.resolve();

  const emitLocal = (e: FileChangedEvent): void => void io?.local.emit(SOCKET_EVENTS.fileChanged, e);
  let outbox: SharedChange[] = [];
  let flushing = false;
  const flushOutbox = (): void => {
    flushing = false;
    const changes = outbox;
    outbox = [];
    if (!link.up) return;
    for (let i = 0; i < changes.length; i += PUBLISH_BATCH) {
      const message = JSON.stringify({ from: instanceId, changes: changes.slice(i, i + PUBLISH_BATCH) });
      void link.pub
        .publish(FILES_CHANNEL, message)
        .catch((err: unknown) => log.warn("could not pass file changes to the other instances", { err: String(err) }));
    }
  };
  const liveness = startLiveness(link, instanceId, log, {
    ...(deps.heartbeatMs !== undefined ? { everyMs: deps.heartbeatMs } : {}),
    onGone: async (id) => {
      // A dead instance's claims would otherwise hold its threads until they lapse, after they are shown
      // interrupted: "continue" must work as soon as the thread says it can.
      try {
        for await (const keys of link.pub.scanIterator({ MATCH: `${CLAIM_PREFIX}*`, COUNT: 500 })) {
          for (const key of keys) await link.pub.eval(RELEASE_OF, { keys: [key], arguments: [`${id}:`] });
        }
      } catch (err) {
        // Its claims still lapse on their own; marking its runs interrupted must not wait for that.
        log.warn(`could not release the thread claims of instance ${id}`, { instance: id, err: String(err) });
      }
      await deps.onInstanceGone?.(id);
    },
  });

  void link.sub
    .subscribe(FILES_CHANNEL, (message) => {
      let parsed: { from: string; changes: SharedChange[] };
      try {
        parsed = JSON.parse(message) as typeof parsed;
      } catch {
        return;
      }
      if (parsed.from === instanceId) return;
      for (const change of parsed.changes) {
        if (!dedupe.admit(change, "remote")) continue;
        onRemote(change.event);
        emitLocal(change.event);
      }
    })
    .catch((err: unknown) => log.warn("could not subscribe to other instances' file changes", { err: String(err) }));

  /** With a timeout of its own: while Redis is away socket.io's requests would wait for it. */
  const within = <T>(promise: Promise<T>, fallback: T): Promise<T> =>
    Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ASK_MS + 500).unref())]);

  return {
    instanceId,
    get connected() {
      return link.up;
    },

    attach(server, workspace, onRemoteChange) {
      io = server;
      policy = workspace;
      onRemote = onRemoteChange;
      server.adapter(createAdapter(dropWhileDown(link), link.sub, { key: "textide", requestsTimeout: ASK_MS }));
      // Each window learns whether it is cut off from the other instances, on connect and on every change.
      const status = (): { cluster: "up" | "down" } => ({ cluster: link.up ? "up" : "down" });
      server.on("connection", (socket) => void socket.emit(SOCKET_EVENTS.serverStatus, status()));
      link.onChange(() => void server.local.emit(SOCKET_EVENTS.serverStatus, status()));
      // Another instance's message, but still checked: both fields are strings or the answer is no.
      const serverSide = server as unknown as { on(ev: string, fn: (...args: unknown[]) => void): void };
      serverSide.on(CANCEL_EVENT, (runId, user, ack) => {
        if (typeof ack !== "function") return;
        const ok = typeof runId === "string" && typeof user === "string" && cancelHere(runId, user);
        (ack as (r: boolean) => void)(ok);
      });
    },

    fileChanged(event) {
      // In order: a burst's events keep their order, each waiting for its file's version.
      chain = chain.then(async () => {
        const change: SharedChange = { event, version: policy ? await versionOf(policy, event) : "" };
        if (!dedupe.admit(change, "local")) return;
        emitLocal(event);
        outbox.push(change);
        // A burst (an unzip, a checkout) goes out in a few messages, not one per file.
        if (!flushing) {
          flushing = true;
          setImmediate(flushOutbox);
        }
      });
    },

    async countWindows() {
      if (!io) return 0;
      const local = io.of("/").sockets.size;
      if (!link.up) return local;
      return within(
        io.fetchSockets().then(
          (all) => all.length,
          () => local,
        ),
        local,
      );
    },

    onCancelRequest(cancel) {
      cancelHere = cancel;
    },

    async cancelElsewhere(runId, user) {
      if (!io || !link.up) return false;
      const server = io as unknown as { serverSideEmitWithAck(ev: string, ...args: string[]): Promise<unknown[]> };
      const answers = await within(
        server.serverSideEmitWithAck(CANCEL_EVENT, runId, user).catch(() => []),
        [] as unknown[],
      );
      return answers.some((a) => a === true);
    },

    async claimThread(threadId, action) {
      // Without Redis the thread store's own state is the only guard left.
      if (!link.up) return () => Promise.resolve();
      const key = `${CLAIM_PREFIX}${threadId}`;
      const token = `${instanceId}:${randomUUID()}`;
      if ((await link.pub.set(key, token, { NX: true, PX: THREAD_CLAIM_MS })) !== "OK") {
        throw action === "approval"
          ? runtimeError("conflict", "approval", "This approval is already being answered in another window.")
          : runtimeError(
              "conflict",
              "agent",
              "This conversation already has a request under way in another window: wait for it to finish, or stop it.",
            );
      }
      // Renewed while the run lasts; an instance that dies stops renewing and the claim lapses.
      const renew = setInterval(() => {
        if (link.up)
          void link.pub.eval(RENEW, { keys: [key], arguments: [token, String(THREAD_CLAIM_MS)] }).catch(() => 0);
      }, THREAD_CLAIM_MS / 3);
      renew.unref();
      let released: Promise<void> | undefined;
      return () => {
        released ??= (async () => {
          clearInterval(renew);
          if (!link.up) return;
          await within(
            link.pub.eval(RELEASE, { keys: [key], arguments: [token] }).catch(() => 0),
            0,
          );
        })();
        return released;
      };
    },

    async close() {
      await chain;
      flushOutbox();
      await liveness.stop();
      await link.close();
    },
  };
}
