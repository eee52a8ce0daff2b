import { randomUUID } from "node:crypto";
import {
  agentApproveRequest,
  agentCancelRequest,
  agentFollowRequest,
  mcpWatchRequest,
  agentRunRequest,
  errorCode,
  SOCKET_EVENTS,
  type Ack,
  type AgentEvent,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from "@textide/shared";
import type { Socket } from "socket.io";
import { z } from "zod";
import { MCP_CALLS_ROOM, threadRoom, type Broadcast } from "../broadcast.js";
import type { Logger } from "../log.js";
import { isAppError, runtimeError } from "../errors.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import type { Cluster } from "../cluster/cluster.js";
import type { WebAuditLog } from "../auth/audit.js";
import { socketUser, type Io } from "./io.js";

type AgentSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
}

/** Puts the socket in the room of the thread its window shows, and out of any other thread's room. */
function followThread(socket: AgentSocket, threadId: string | null): void {
  const wanted = threadId === null ? undefined : threadRoom(threadId);
  for (const room of socket.rooms) if (room.startsWith(threadRoom("")) && room !== wanted) void socket.leave(room);
  // A closed socket joining would leave its id in the room for good.
  if (wanted !== undefined && socket.connected) void socket.join(wanted);
}

/**
 * Registers `agent/run`, `agent/cancel`, `agent/approve`, `agent/follow` and `mcp/watch` on every socket; run events go
 * out as `agent/event` to the sockets following the run's thread (the one that asked follows it from the
 * run's first event). Payloads are validated here; a bad one gets `{ok:false, error:{code:"bad_request:socket"}}`.
 */
export function registerAgentHandlers(
  io: Io,
  runtime: AgentRuntime,
  broadcast: Broadcast,
  log: Logger,
  audit?: WebAuditLog,
  cluster?: Cluster,
): void {
  // Stop clicked in a window of another instance reaches the instance that runs the request.
  // Stop is the clicking user's: the run's instance checks that the run is theirs.
  cluster?.onCancelRequest((runId, user) => runtime.cancel(runId, user));
  /** Broadcasts a run's events, the asking socket following the run's thread before the first one. */
  const eventsFor = (socket: AgentSocket) => {
    let following = false;
    return (e: AgentEvent): void => {
      if (!following) followThread(socket, e.threadId);
      following = true;
      broadcast.agentEvent(e, socketUser(socket));
    };
  };

  /**
   * Starts a run holding its thread's claim across instances (one run per thread at a time, whichever
   * instance each message reaches) until the run ends or fails to start.
   */
  async function claimed<T>(
    threadId: string | undefined,
    action: "run" | "approval",
    socket: AgentSocket,
    launch: (onEvent: (e: AgentEvent) => void) => Promise<T>,
  ): Promise<T> {
    const claim = cluster && threadId !== undefined ? cluster.claimThread(threadId, action) : undefined;
    const events = eventsFor(socket);
    if (!claim) return launch(events);
    const release = await claim;
    const onEvent = (e: AgentEvent): void => {
      if (e.type !== "final" && e.type !== "error") return events(e);
      // The claim is given back before anyone hears that the run ended: a message or an approval sent on
      // seeing the end, through any instance, finds the thread free.
      void release().finally(() => events(e));
    };
    return launch(onEvent).catch(async (err: unknown) => {
      await release();
      throw err;
    });
  }

  function handle<S extends z.ZodType, T>(
    socket: AgentSocket,
    event: keyof ClientToServerEvents,
    schema: S,
    action: (payload: z.infer<S>) => Promise<T>,
  ): void {
    // socket.io passes whatever the client sent: the payload and the ack are both untrusted.
    (socket as unknown as Socket).on(event, (payload: unknown, ack: unknown) => {
      const reply: Ack<T> = typeof ack === "function" ? (ack as Ack<T>) : () => undefined;
      const parsed = schema.safeParse(payload);
      if (!parsed.success) {
        reply({
          ok: false,
          error: { code: errorCode("bad_request", "socket"), message: describeIssues(parsed.error) },
        });
        return;
      }
      action(parsed.data).then(
        (data) => reply({ ok: true, data }),
        (err: unknown) => {
          if (!isAppError(err)) log.error(`${event} failed`, { err: String(err), stack: (err as Error).stack });
          const error = isAppError(err)
            ? { code: err.codeOn("socket"), message: err.message }
            : { code: errorCode("internal", "socket"), message: "The request failed." };
          reply({ ok: false, error });
        },
      );
    });
  }

  io.on("connection", (raw) => {
    const socket = raw as unknown as AgentSocket;
    const user = socketUser(socket);
    handle(socket, SOCKET_EVENTS.agentRun, agentRunRequest, async (p) => {
      // In a team deployment a new thread gets its id here, so that it is claimed like any other.
      const input = cluster && p.threadId === undefined ? { ...p, threadId: randomUUID() } : p;
      const run = await claimed(input.threadId, "run", socket, (onEvent) => runtime.start(input, onEvent, user));
      audit?.record({ kind: "run", user, threadId: run.threadId, runId: run.runId });
      return run;
    });
    handle(socket, SOCKET_EVENTS.agentCancel, agentCancelRequest, async ({ runId }) => {
      await Promise.resolve();
      if (!runtime.cancel(runId, user) && !(await cluster?.cancelElsewhere(runId, user))) {
        throw runtimeError("not_found", "run", `No active run ${runId}.`);
      }
      return { runId };
    });
    handle(socket, SOCKET_EVENTS.agentApprove, agentApproveRequest, async (p) => {
      // Two instances must not both resume one approval (two windows, two clicks): the first claims it.
      const run = await claimed(p.threadId, "approval", socket, (onEvent) =>
        runtime.approve(p.threadId, p.decision, onEvent, user),
      );
      audit?.record({ kind: "run", user, threadId: run.threadId, runId: run.runId, resume: p.decision });
      return run;
    });
    handle(socket, SOCKET_EVENTS.agentFollow, agentFollowRequest, async ({ threadId }) => {
      // The room carries the thread's run events: another user's thread is refused as if it did not exist.
      if (threadId !== null) await runtime.history(threadId, user);
      followThread(socket, threadId);
      return { threadId };
    });
    handle(socket, SOCKET_EVENTS.mcpWatch, mcpWatchRequest, async ({ watch }) => {
      await Promise.resolve();
      if (!watch) void socket.leave(MCP_CALLS_ROOM);
      else if (socket.connected) void socket.join(MCP_CALLS_ROOM);
      return { watch };
    });
  });
}
