import { io, type Socket } from "socket.io-client";
import type { ClientToServerEvents, ServerToClientEvents } from "./types";

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: ClientSocket | undefined;

/** The page's one socket.io connection (same origin, `/socket.io`). */
export function getSocket(): ClientSocket {
  socket ??= io({ path: "/socket.io", transports: ["websocket", "polling"] });
  return socket;
}
