import {
  SOCKET_EVENTS,
  type AgentEvent,
  type FileChangedEvent,
  type McpCallEvent,
  type OpenFileEvent,
} from "@textide/shared";
import type { Cluster } from "./cluster/cluster.js";
import { userRoom, type Io } from "./socket/io.js";

/** The socket.io room of the sockets that follow a thread (see `followThread`). */
export const threadRoom = (threadId: string): string => `thread:${threadId}`;
/** The socket.io room of the sockets whose window shows the MCP call log. */
export const MCP_CALLS_ROOM = "mcp-calls";

/**
 * Everything the server pushes to browsers. HTTP handlers, the watcher and the agent report through
 * this, so none of them needs to know about socket.io. A run's events go only to the windows that follow
 * its thread (each window shows one thread; sending every run's events to every window made the server's
 * work grow with windows × runs); the files a run wrote go to every window of the run's user, which opens them. MCP calls go only to the windows showing the call log, which loads the earlier ones.
 */
export interface Broadcast {
  fileChanged(event: FileChangedEvent): void;
  /** Resolves with how many browsers were connected to receive it (on every instance of a team deployment). */
  openFile(event: OpenFileEvent): Promise<number>;
  /** `user` (the run's owner) gets the run's outputs opened in their windows; without it every window does. */
  agentEvent(event: AgentEvent, user?: string): void;
  mcpCall(event: McpCallEvent): void;
}

/**
 * With a `cluster` (Redis), `io.emit` and room emits reach every instance's windows through socket.io's
 * Redis adapter; file changes go through the cluster instead, which keeps them to one per window when
 * several instances' watchers see the same change.
 */
export function createBroadcast(io: Io, cluster?: Cluster): Broadcast {
  return {
    fileChanged: (e) => (cluster ? cluster.fileChanged(e) : void io.emit(SOCKET_EVENTS.fileChanged, e)),
    async openFile(e) {
      io.emit(SOCKET_EVENTS.fileOpen, e);
      return cluster ? cluster.countWindows() : io.of("/").sockets.size;
    },
    agentEvent(e, user) {
      io.to(threadRoom(e.threadId)).emit(SOCKET_EVENTS.agentEvent, e);
      if (e.type === "tool_end" && e.outputs.length > 0) {
        const to = user === undefined ? io : io.to(userRoom(user));
        to.emit(SOCKET_EVENTS.agentOutputs, { runId: e.runId, threadId: e.threadId, outputs: e.outputs });
      }
    },
    mcpCall: (e) => void io.to(MCP_CALLS_ROOM).emit(SOCKET_EVENTS.mcpCall, e),
  };
}
