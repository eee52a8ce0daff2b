import { capabilities } from "../answers.js";
import type { Decision, Intent, PlannedCall, Step, StepKind, StepMarker, Turn, WireTool } from "../types.js";

/* What every flow reads (the turn, its intent, which tools exist) and the small verbs flows share. */

export const EXEC_TIMEOUT_MS = 20_000;

export interface Ctx {
  turn: Turn;
  intent: Intent;
  steps: Step[];
  has: (tool: WireTool) => boolean;
}

/** One flow: the next step of a turn for one kind of request. */
export type Flow = (ctx: Ctx) => Decision;

export const call = (name: WireTool, args: Record<string, unknown>, marker?: StepMarker): Decision => ({
  calls: [{ name, args, ...(marker ? { marker } : {}) } satisfies PlannedCall],
});
export const answer = (text: string): Decision => ({ answer: text });
export const isDecision = (v: unknown): v is Decision =>
  typeof v === "object" && v !== null && ("calls" in v || "answer" in v);

export function stepsOf(ctx: Ctx, ...kinds: StepKind[]): Step[] {
  return ctx.steps.filter((s) => kinds.includes(s.kind));
}

export function ok(step: Step | undefined): boolean {
  return step?.result?.ok === true;
}

export function missingTool(tool: WireTool): Decision {
  return answer(
    capabilities(`The ${tool} tool is not available in this session, so the offline planner cannot do that.`),
  );
}
