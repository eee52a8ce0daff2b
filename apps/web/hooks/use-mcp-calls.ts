"use client";

import { useEffect, useState } from "react";
import type { McpCallEvent } from "@textide/shared";
import { fetchMcpCalls, mergeCalls } from "@/lib/mcp-calls";
import { getSocket } from "@/lib/socket-client";
import { useSocketEvent } from "./use-socket-event";

/**
 * The MCP call log: every `mcp/call` as it comes, and the server's last calls. The server sends `mcp/call`
 * only to windows that watch the log (`mcp/watch`), so the log is fetched once the watch is acknowledged
 * (no call falls between the two; merging by id drops the ones seen twice), and again after a reconnect.
 */
export function useMcpCalls(): { calls: McpCallEvent[]; error: string | undefined } {
  const [calls, setCalls] = useState<McpCallEvent[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    const socket = getSocket();
    const load = (): void =>
      void fetchMcpCalls().then(
        // Live calls that arrived during the fetch are in the answer too; merging by id drops them.
        (loaded) => live && setCalls((prev) => mergeCalls(loaded, prev)),
        (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
      );
    const watch = (): void => void socket.emit("mcp/watch", { watch: true }, load);
    socket.on("connect", watch);
    if (socket.connected) watch();
    else load();
    return () => {
      live = false;
      socket.off("connect", watch);
      socket.emit("mcp/watch", { watch: false }, () => undefined);
    };
  }, []);
  useSocketEvent("mcp/call", (call) => setCalls((prev) => mergeCalls(prev, [call])));
  return { calls, error };
}
