import type { ChartPlan } from "../types.js";
import { planGrouped } from "./grouped.js";
import type { ChartKind } from "./resolve.js";

/* Pie chart: one measure (or a count) per category, largest slice first. */

function spec(plan: ChartPlan): Record<string, unknown> {
  return {
    title: plan.title,
    width: 360,
    height: 360,
    mark: { type: "arc", tooltip: true, stroke: "white" },
    encoding: {
      theta: { field: "value", type: "quantitative", title: plan.yTitle, stack: true },
      color: { field: "x", type: "nominal", title: plan.xTitle, sort: null },
      order: { field: "value", type: "quantitative", sort: "descending" },
    },
    view: { stroke: null },
  };
}

export const pie: ChartKind = { plan: planGrouped, spec };
