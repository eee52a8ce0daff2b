import type { IntentKind } from "../types.js";
import { chartFlow, rankFlow } from "./chart.js";
import type { Flow } from "./context.js";
import { describeFlow } from "./describe.js";
import { findFlow } from "./find.js";
import { helpFlow, unknownFlow } from "./help.js";
import { listFlow } from "./list.js";
import { previewFlow } from "./preview.js";
import { transformFlow } from "./transform.js";

/* Every kind of request and the flow that serves it: a new intent kind is one file and one line here. */

export const FLOWS: Record<IntentKind, Flow> = {
  chart: chartFlow,
  rank: rankFlow,
  transform: transformFlow,
  describe: describeFlow,
  preview: previewFlow,
  list: listFlow,
  find: findFlow,
  help: helpFlow,
  unknown: unknownFlow,
};
