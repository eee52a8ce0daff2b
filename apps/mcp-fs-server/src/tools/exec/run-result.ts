import type { RunJsOutput } from "@textide/shared";
import type { RunOutcome } from "../../exec/protocol.js";
import { formatBytes } from "../fs/format.js";

/** What exec_run_js and exec_run_python both report of a run (their timings differ and are not shown). */
export type ShownOutcome = Omit<RunOutcome, "timings"> & { queueMs: number };

/** The structured result of exec_run_js and exec_run_python (one schema serves both). */
export function runOutput(outcome: ShownOutcome): RunJsOutput {
  return {
    ok: outcome.ok,
    ...(outcome.resultJson !== undefined ? { result: JSON.parse(outcome.resultJson) as unknown } : {}),
    logs: outcome.logs,
    logsTruncated: outcome.logsTruncated,
    outputs: outcome.outputs.map(({ path, bytes, mime }) => ({ path, bytes, mime })),
    ...(outcome.error ? { error: outcome.error } : {}),
    durationMs: outcome.durationMs,
    queueMs: Math.round(outcome.queueMs * 100) / 100,
  };
}

/**
 * The text content of a run's result. `noValue` is said when the code produced no value, in the
 * language's own words ("return value", "final value").
 */
export function describeRun(r: RunJsOutput, resultJson: string | undefined, noValue: string): string {
  const parts: string[] = [];
  if (r.error) {
    parts.push(
      `${r.error.kind} error${r.error.line !== undefined ? ` at line ${r.error.line}` : ""}: ${r.error.message}`,
    );
  } else {
    parts.push(resultJson === undefined ? noValue : `Result: ${resultJson}`);
  }
  if (r.outputs.length > 0)
    parts.push(`Files written:\n${r.outputs.map((o) => `- ${o.path} (${formatBytes(o.bytes)})`).join("\n")}`);
  if (r.logs) parts.push(`Logs${r.logsTruncated ? " (truncated)" : ""}:\n${r.logs.trimEnd()}`);
  // Waiting for a free sandbox is worth a word only when it was noticeable.
  parts.push(
    `(${Math.round(r.durationMs)} ms${r.queueMs >= 100 ? `, after ${Math.round(r.queueMs)} ms waiting for a free sandbox` : ""})`,
  );
  return parts.join("\n\n");
}
