import type { Server as HttpServer, IncomingMessage } from "node:http";
import type { ClientToServerEvents, ServerToClientEvents } from "@textide/shared";
import { Server } from "socket.io";
import { LOCAL_USER, SIGN_IN_NEEDED } from "../auth/auth.js";
import { isAppError } from "../errors.js";
import { checkHostAndOrigin } from "../security/request-guard.js";

export type Io = Server<ClientToServerEvents, ServerToClientEvents>;

/**
 * socket.io on the app's HTTP server at `/socket.io`. No CORS headers are sent, and the handshake
 * is refused for a foreign `Host` or `Origin` (the same DNS-rebinding defence as the REST API).
 */
export function createIo(
  httpServer: HttpServer,
  opts: {
    allowedHosts: Set<string>;
    /** The signed-in user of a handshake (undefined: refused); without it everybody is "local". */
    identify?: (req: IncomingMessage) => string | undefined;
    /** How often open sockets are checked against their handshake's session (default a minute). */
    recheckMs?: number;
  },
): Io {
  const identify = opts.identify ?? (() => LOCAL_USER);
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    path: "/socket.io",
    serveClient: false,
    allowRequest: (req, callback) => {
      try {
        checkHostAndOrigin(req, opts.allowedHosts, true);
        // Every engine.io request (each poll and the upgrade) carries the cookie: no session, no socket.
        if (identify(req) === undefined) callback(SIGN_IN_NEEDED, false);
        else callback(null, true);
      } catch (err) {
        callback(isAppError(err) ? err.message : "Forbidden", false);
      }
    },
  });
  io.use((socket, next) => {
    const user = identify(socket.request);
    if (user === undefined) next(new Error(SIGN_IN_NEEDED));
    else {
      (socket.data as SocketData).user = user;
      void socket.join(userRoom(user));
      next();
    }
  });
  if (opts.identify) {
    // The handshake alone authorised a socket: one whose session has since expired is closed (the page
    // then finds its session gone and shows the sign-in page).
    const timer = setInterval(() => {
      for (const socket of io.of("/").sockets.values()) {
        if (identify(socket.request) === undefined) socket.disconnect(true);
      }
    }, opts.recheckMs ?? 60_000);
    timer.unref();
    httpServer.once("close", () => clearInterval(timer));
  }
  return io;
}

/** The socket.io room of one user's windows: a run's outputs open only in its owner's. */
export const userRoom = (user: string): string => `user:${user}`;

/** What the handshake leaves on every socket. */
export interface SocketData {
  /** The signed-in user ("local" on a loopback single-user server). */
  user: string;
}

/** The user a socket acts for (set at its handshake). */
export function socketUser(socket: { data: unknown }): string {
  const user = (socket.data as Partial<SocketData> | undefined)?.user;
  if (user === undefined) throw new Error("socketUser: the socket did not pass the sign-in handshake");
  return user;
}
