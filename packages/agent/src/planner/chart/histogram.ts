import { lit } from "../code/helpers.js";
import { slug } from "../text.js";
import type { ChartPlan } from "../types.js";
import { bare, human, isNumeric, type ChartKind, type PlanInput, type PlanResult } from "./resolve.js";

/*
 * Histogram: one numeric column binned. A "histogram" of a text column is left to the grouped
 * planner, which counts rows per value.
 */

function plan({ r, mentioned, fit, notes, base, rankHint, firstMeasure }: PlanInput): PlanResult | undefined {
  const candidates = [...r.head, ...r.by, ...r.over].map((m) => m.column);
  const m = candidates.find(isNumeric) ?? rankHint() ?? (candidates.length === 0 ? firstMeasure([]) : undefined);
  if (m) {
    if (!mentioned.has(m)) notes.push(`No numeric column was named; used ${m.name}.`);
    return {
      ok: true,
      plan: {
        ...base,
        type: "histogram",
        x: m.name,
        xKind: "quantitative",
        measures: [m.name],
        agg: "count",
        sort: "data",
        otherBucket: false,
        title: `Distribution of ${human(m.name)}`,
        xTitle: m.name,
        yTitle: "Count",
        name: `${slug(bare(m.name))}-histogram`,
        summary: `histogram of ${m.name} (up to 20 bins)`,
        fit: fit + (mentioned.has(m) ? 0.5 : 0),
      },
    };
  }
  return undefined;
}

function spec(plan: ChartPlan): Record<string, unknown> {
  return {
    title: plan.title,
    width: 560,
    height: 340,
    mark: { type: "bar", tooltip: true },
    encoding: {
      x: { field: "value", type: "quantitative", bin: { maxbins: 20 }, title: plan.xTitle },
      y: { aggregate: "count", type: "quantitative", title: "Count" },
    },
  };
}

function data(plan: ChartPlan): string {
  return `const data = rows.map((r) => ({ value: num(r[${lit(plan.x)}]) })).filter((d) => d.value !== null);`;
}

export const histogram: ChartKind = {
  plan,
  spec,
  data,
  summary:
    "{ count: data.length, min: data.reduce((a, d) => Math.min(a, d.value), Infinity), max: data.reduce((a, d) => Math.max(a, d.value), -Infinity) }",
  extremes: false,
};
