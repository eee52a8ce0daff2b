import { FOLLOW_UP_FILLER } from "../vocabulary.js";
import type { Intent } from "../types.js";
import { parseIntent } from "./parse.js";

/*
 * "now as a bar chart", "top 3 instead", "on a log scale": a request that only changes the form
 * of the previous chart reuses the previous request's subject.
 */

/** Only a change of form, no subject of its own. */
function isFollowUp(intent: Intent): boolean {
  const changesForm = intent.chartType !== undefined || intent.rank !== undefined || intent.logScale;
  return !intent.explicitFile && changesForm && intent.terms.every((t) => FOLLOW_UP_FILLER.has(t));
}

export function followUp(intent: Intent, previous: readonly string[]): Intent {
  if (!isFollowUp(intent)) return intent;
  // The latest earlier request with a subject of its own, then every form change since, in order.
  const parsed = previous.map(parseIntent);
  const at = parsed.findIndex((p) => !isFollowUp(p));
  const subject = parsed[at];
  if (!subject || (subject.kind !== "chart" && subject.kind !== "rank")) return intent;
  const changes = [...parsed.slice(0, at).reverse(), intent];
  return changes.reduce((before, change) => applyForm(before, change), subject);
}

function applyForm(before: Intent, change: Intent): Intent {
  const chartType = change.chartType ?? before.chartType;
  // "top 3 instead" after "largest planets" keeps "largest" and takes the 3.
  const generic = change.rank?.word === "top" || change.rank?.word === "bottom";
  const rank =
    change.rank && generic && before.rank
      ? { ...before.rank, ...(change.rank.n !== undefined ? { n: change.rank.n } : {}) }
      : (change.rank ?? before.rank);
  return {
    ...before,
    kind: "chart",
    text: change.text,
    ...(chartType ? { chartType } : {}),
    ...(rank ? { rank } : {}),
    logScale: change.logScale || before.logScale,
  };
}
