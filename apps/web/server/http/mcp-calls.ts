import type { ServerResponse } from "node:http";
import type { McpCallsResponse } from "@textide/shared";
import type { McpCallLog } from "../mcp/call-log.js";
import { sendJson } from "./respond.js";

/** `GET /api/mcp-calls`: the call log's last entries, oldest first. */
export function getMcpCalls(calls: McpCallLog, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { calls: calls.list() } satisfies McpCallsResponse);
  return Promise.resolve();
}
