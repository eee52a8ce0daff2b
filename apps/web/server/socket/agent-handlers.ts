import type { AgentEvent } from "@textide/shared";
import type { Server, Socket } from "socket.io";
import { z } from "zod";
import type { Logger } from "../log.js";
import { isRuntimeError, RuntimeError, type AgentRuntime } from "../runtime/agent-runtime.js";
import type { Io } from "./io.js";

// Agent socket contract. Like events.ts, these belong in packages/shared once the UI consumes them.

/** client → server `agent/run`: start a run, in a new thread unless `threadId` is given. */
export const agentRunRequest = z.object({
  threadId: z
    .string()
    .regex(/^[\w.:-]{1,200}$/, "letters, digits, _ . : - only")
    .optional(),
  text: z.string().trim().min(1).max(20_000),
});
/** client → server `agent/cancel`. */
export const agentCancelRequest = z.object({ runId: z.string().min(1).max(200) });
/** client → server `agent/approve`: answer a thread's pending approval. */
export const agentApproveRequest = z.object({
  threadId: z.string().min(1).max(200),
  decision: z.enum(["approve", "reject"]),
});

export interface SocketError {
  code: string;
  message: string;
}
export type Ack<T> = (reply: { ok: true; data: T } | { ok: false; error: SocketError }) => void;

export interface AgentClientToServerEvents {
  "agent/run": (payload: z.infer<typeof agentRunRequest>, ack: Ack<{ runId: string; threadId: string }>) => void;
  "agent/cancel": (payload: z.infer<typeof agentCancelRequest>, ack: Ack<{ runId: string }>) => void;
  "agent/approve": (
    payload: z.infer<typeof agentApproveRequest>,
    ack: Ack<{ runId: string; threadId: string }>,
  ) => void;
}

export interface AgentServerToClientEvents {
  /** Every event of every run, to every socket (all open windows follow a run). */
  "agent/event": (event: AgentEvent) => void;
}

type AgentIo = Server<AgentClientToServerEvents, AgentServerToClientEvents>;
type AgentSocket = Socket<AgentClientToServerEvents, AgentServerToClientEvents>;

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
}

/**
 * Registers `agent/run`, `agent/cancel` and `agent/approve` on every socket and broadcasts run events as
 * `agent/event`. Payloads are validated here; a bad one gets `{ok:false, error:{code:"bad_request:socket"}}`.
 */
export function registerAgentHandlers(io: Io, runtime: AgentRuntime, log: Logger): void {
  const agentIo = io as unknown as AgentIo;
  const broadcast = (e: AgentEvent): void => {
    agentIo.emit("agent/event", e);
  };

  function handle<S extends z.ZodType, T>(
    socket: AgentSocket,
    event: keyof AgentClientToServerEvents,
    schema: S,
    action: (payload: z.infer<S>) => Promise<T>,
  ): void {
    // socket.io passes whatever the client sent: the payload and the ack are both untrusted.
    (socket as unknown as Socket).on(event, (payload: unknown, ack: unknown) => {
      const reply: Ack<T> = typeof ack === "function" ? (ack as Ack<T>) : () => undefined;
      const parsed = schema.safeParse(payload);
      if (!parsed.success) {
        reply({ ok: false, error: { code: "bad_request:socket", message: describeIssues(parsed.error) } });
        return;
      }
      action(parsed.data).then(
        (data) => reply({ ok: true, data }),
        (err: unknown) => {
          if (!isRuntimeError(err)) log.error(`${event} failed`, { err: String(err), stack: (err as Error).stack });
          const error = isRuntimeError(err)
            ? { code: err.code, message: err.message }
            : { code: "internal:socket", message: "The request failed." };
          reply({ ok: false, error });
        },
      );
    });
  }

  io.on("connection", (raw) => {
    const socket = raw as unknown as AgentSocket;
    handle(socket, "agent/run", agentRunRequest, (p) => runtime.start(p, broadcast));
    handle(socket, "agent/cancel", agentCancelRequest, async ({ runId }) => {
      await Promise.resolve();
      if (!runtime.cancel(runId)) {
        throw new RuntimeError("not_found:run", `No active run ${runId}.`);
      }
      return { runId };
    });
    handle(socket, "agent/approve", agentApproveRequest, (p) => runtime.approve(p.threadId, p.decision, broadcast));
  });
}
