import { xEncoding, yEncoding } from "./axes.js";
import type { ChartPlan } from "../types.js";
import { planGrouped } from "./grouped.js";
import type { ChartKind } from "./resolve.js";

/* Line chart: values over a time or numeric x axis, one line per series. */

function spec(plan: ChartPlan): Record<string, unknown> {
  const multi = plan.series !== undefined || plan.measures.length > 1;
  const seriesTitle = plan.series ?? "Series";
  return {
    title: plan.title,
    width: 640,
    height: 360,
    mark: { type: "line", point: true, tooltip: true },
    encoding: {
      x: xEncoding(plan),
      y: yEncoding(plan),
      ...(multi ? { color: { field: "series", type: "nominal", title: seriesTitle } } : {}),
    },
  };
}

export const line: ChartKind = {
  plan: planGrouped,
  spec,
  layout: () => `// Point markers only while they stay readable\nspec.mark.point = data.length <= 40;`,
};
