import {
  SOCKET_EVENTS,
  type AgentEvent,
  type FileChangedEvent,
  type McpCallEvent,
  type OpenFileEvent,
} from "@textide/shared";
import type { Io } from "./socket/io.js";

/**
 * Everything the server pushes to every connected browser. HTTP handlers, the watcher and the agent
 * report through this, so none of them needs to know about socket.io.
 */
export interface Broadcast {
  fileChanged(event: FileChangedEvent): void;
  /** Returns how many browsers were connected to receive it. */
  openFile(event: OpenFileEvent): number;
  agentEvent(event: AgentEvent): void;
  mcpCall(event: McpCallEvent): void;
}

export function createBroadcast(io: Io): Broadcast {
  return {
    fileChanged: (e) => void io.emit(SOCKET_EVENTS.fileChanged, e),
    openFile(e) {
      io.emit(SOCKET_EVENTS.fileOpen, e);
      return io.of("/").sockets.size;
    },
    agentEvent: (e) => void io.emit(SOCKET_EVENTS.agentEvent, e),
    mcpCall: (e) => void io.emit(SOCKET_EVENTS.mcpCall, e),
  };
}
