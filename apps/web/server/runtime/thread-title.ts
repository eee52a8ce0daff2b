import type { TraceMessage } from "@textide/shared";

const TITLE_MAX = 80;

/** A thread's title in the list: its first request, shortened. */
export function threadTitle(trace: readonly TraceMessage[]): string {
  const first = trace.find((m) => m.role === "user")?.content.trim() ?? "";
  return first.length > TITLE_MAX ? `${first.slice(0, TITLE_MAX - 1)}…` : first || "(empty thread)";
}
