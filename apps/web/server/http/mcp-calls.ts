import type { ServerResponse } from "node:http";
import type { McpCallLog } from "../mcp/call-log.js";
import type { Io } from "../socket/io.js";
import { sendJson } from "./respond.js";

/** `GET /api/mcp-calls`: the call log's last entries, oldest first. */
export function getMcpCalls(calls: McpCallLog, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { calls: calls.list() });
  return Promise.resolve();
}

/** Sends every new call to every socket as `mcp/call`. */
export function broadcastMcpCalls(calls: McpCallLog, io: Io): () => void {
  return calls.onCall((call) => io.emit("mcp/call", call));
}
