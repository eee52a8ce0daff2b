import { threadTitleOf } from "@textide/agent";
import type { TraceMessage } from "@textide/shared";

/** A thread's title in the list: its first request, shortened. */
export function threadTitle(trace: readonly TraceMessage[]): string {
  return threadTitleOf(trace.find((m) => m.role === "user")?.content ?? "");
}
