"use client";

import { useEffect, useState } from "react";
import type { McpCallEvent } from "@textide/shared";
import { fetchMcpCalls, mergeCalls } from "@/lib/mcp-calls";
import { useSocketEvent } from "./use-socket-event";

/** The MCP call log: the server's last calls on mount, then every `mcp/call` as it comes. */
export function useMcpCalls(): { calls: McpCallEvent[]; error: string | undefined } {
  const [calls, setCalls] = useState<McpCallEvent[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    fetchMcpCalls().then(
      // Live calls that arrived during the fetch are in the answer too; merging by id drops them.
      (loaded) => live && setCalls((prev) => mergeCalls(loaded, prev)),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, []);
  useSocketEvent("mcp/call", (call) => setCalls((prev) => mergeCalls(prev, [call])));
  return { calls, error };
}
