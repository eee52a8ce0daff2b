import { xEncoding, yEncoding } from "./axes.js";
import type { ChartPlan } from "../types.js";
import { planGrouped } from "./grouped.js";
import type { ChartKind } from "./resolve.js";

/* Bar chart: one bar per category (side by side or stacked per series). */

function spec(plan: ChartPlan): Record<string, unknown> {
  const multi = plan.series !== undefined || plan.measures.length > 1;
  const seriesTitle = plan.series ?? "Series";
  return {
    title: plan.title,
    height: 360,
    mark: { type: "bar", tooltip: true },
    encoding: {
      x: xEncoding(plan),
      y: yEncoding(plan),
      ...(multi
        ? {
            color: { field: "series", type: "nominal", title: seriesTitle },
            ...(plan.stacked ? {} : { xOffset: { field: "series" } }),
          }
        : {}),
    },
  };
}

export const bar: ChartKind = {
  plan: planGrouped,
  spec,
  layout: (plan) =>
    `spec.width = Math.max(360, Math.min(1000, data.length * ${plan.series || plan.measures.length > 1 ? 18 : 36}));`,
};
