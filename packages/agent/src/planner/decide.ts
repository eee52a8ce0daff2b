import { FLOWS } from "./flows/index.js";
import { ok } from "./flows/context.js";
import { followUp } from "./intent/follow-up.js";
import { parseIntent } from "./intent/parse.js";
import { failureText } from "./results.js";
import type { Decision, Turn, WireTool } from "./types.js";

/*
 * The policy: given the request and what the turn's tool calls returned so far, the next step.
 * The request's kind picks a flow (flows/index.ts); each flow is a fixed sequence (search →
 * inspect → act → answer) that skips what is already done and recovers once from a failed step,
 * so the same message list always gives the same decision.
 */

/** A turn never makes more tool calls than this (the graph's recursion limit is a second guard). */
export const MAX_STEPS = 12;

/** Decides the next step of a turn. */
export function decide(turn: Turn, has: (tool: WireTool) => boolean): Decision {
  const intent = followUp(parseIntent(turn.request), turn.previousRequests);
  if (turn.steps.length >= MAX_STEPS) {
    const last = turn.steps[turn.steps.length - 1]!;
    return {
      answer: `Stopped after ${turn.steps.length} tool calls without finishing.${ok(last) ? "" : ` The last one failed: ${failureText(last)}`}`,
    };
  }
  return FLOWS[intent.kind]({ turn, intent, steps: turn.steps, has });
}
