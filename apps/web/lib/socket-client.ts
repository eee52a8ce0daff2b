import { io, type Socket } from "socket.io-client";
import type { ClientToServerEvents, ServerToClientEvents } from "./types";

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: ClientSocket | undefined;

/** The page's one socket.io connection (same origin, `/socket.io`). */
export function getSocket(): ClientSocket {
  if (!socket) {
    socket = io({ path: "/socket.io", transports: ["websocket", "polling"] });
    // The server closes the sockets of a session that expired (team deployments): sign in again.
    socket.on("disconnect", (reason) => {
      if (reason !== "io server disconnect") return;
      void fetch("/api/auth/me").then((r) => {
        if (r.status === 401) window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname)}`);
      });
    });
  }
  return socket;
}
