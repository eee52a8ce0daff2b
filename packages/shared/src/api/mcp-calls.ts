import type { McpCallEvent } from "../socket-events.js";

/** `GET /api/mcp-calls`: the call log's last entries, oldest first. */
export interface McpCallsResponse {
  calls: McpCallEvent[];
}
