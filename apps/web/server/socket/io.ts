import type { Server as HttpServer } from "node:http";
import type { ClientToServerEvents, ServerToClientEvents } from "@textide/shared";
import { Server } from "socket.io";
import { isAppError } from "../errors.js";
import { checkHostAndOrigin } from "../security/request-guard.js";

export type Io = Server<ClientToServerEvents, ServerToClientEvents>;

/**
 * socket.io on the app's HTTP server at `/socket.io`. No CORS headers are sent, and the handshake
 * is refused for a foreign `Host` or `Origin` (the same DNS-rebinding defence as the REST API).
 */
export function createIo(httpServer: HttpServer, opts: { allowedHosts: Set<string> }): Io {
  return new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    path: "/socket.io",
    serveClient: false,
    allowRequest: (req, callback) => {
      try {
        checkHostAndOrigin(req, opts.allowedHosts, true);
        callback(null, true);
      } catch (err) {
        callback(isAppError(err) ? err.message : "Forbidden", false);
      }
    },
  });
}
