import {
  agentApproveRequest,
  agentCancelRequest,
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
import type { Broadcast } from "../broadcast.js";
import type { Logger } from "../log.js";
import { isAppError, runtimeError } from "../errors.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import type { Io } from "./io.js";

type AgentSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
}

/**
 * Registers `agent/run`, `agent/cancel` and `agent/approve` on every socket and broadcasts run events as
 * `agent/event`. Payloads are validated here; a bad one gets `{ok:false, error:{code:"bad_request:socket"}}`.
 */
export function registerAgentHandlers(io: Io, runtime: AgentRuntime, broadcast: Broadcast, log: Logger): void {
  const onEvent = (e: AgentEvent): void => broadcast.agentEvent(e);

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
    handle(socket, SOCKET_EVENTS.agentRun, agentRunRequest, (p) => runtime.start(p, onEvent));
    handle(socket, SOCKET_EVENTS.agentCancel, agentCancelRequest, async ({ runId }) => {
      await Promise.resolve();
      if (!runtime.cancel(runId)) {
        throw runtimeError("not_found", "run", `No active run ${runId}.`);
      }
      return { runId };
    });
    handle(socket, SOCKET_EVENTS.agentApprove, agentApproveRequest, (p) =>
      runtime.approve(p.threadId, p.decision, onEvent),
    );
  });
}
