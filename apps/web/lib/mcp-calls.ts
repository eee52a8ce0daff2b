import { call } from "./api";
import type { McpCallEvent, McpCallsResponse } from "@textide/shared";

/** As many calls as the server keeps (`GET /api/mcp-calls`). */
export const MAX_CALLS = 500;

export type StatusFilter = "all" | "errors";

export async function fetchMcpCalls(): Promise<McpCallEvent[]> {
  return (await call<McpCallsResponse>("/api/mcp-calls")).calls;
}

/** Appends calls not seen yet (by id), keeping the newest `MAX_CALLS`, oldest first. */
export function mergeCalls(current: readonly McpCallEvent[], incoming: readonly McpCallEvent[]): McpCallEvent[] {
  const ids = new Set(current.map((c) => c.id));
  const fresh = incoming.filter((c) => !ids.has(c.id));
  if (fresh.length === 0) return current as McpCallEvent[];
  return [...current, ...fresh].slice(-MAX_CALLS);
}

/** Compact one-line JSON of a call's (already summarised) arguments. */
export function argsText(args: unknown): string {
  if (args === undefined) return "";
  const text = JSON.stringify(args) ?? "";
  return text === "{}" ? "" : text;
}

/** Calls matching the status filter and, case-insensitively, the text in tool, status, source or args. */
export function filterCalls(calls: readonly McpCallEvent[], text: string, status: StatusFilter): McpCallEvent[] {
  const needle = text.trim().toLowerCase();
  return calls.filter((c) => {
    if (status === "errors" && c.status === "ok") return false;
    if (!needle) return true;
    return [c.tool, c.status, c.source, argsText(c.args)].some((s) => s.toLowerCase().includes(needle));
  });
}

/** `14:03:07.123` in local time. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
