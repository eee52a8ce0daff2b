import type { ChartPlan } from "../types.js";

/* The x and y encodings that bar and line charts share. */

export function xEncoding(plan: ChartPlan): Record<string, unknown> {
  const base = { field: "x", title: plan.xTitle };
  switch (plan.xKind) {
    case "temporal":
      return {
        ...base,
        type: "temporal",
        timeUnit:
          plan.timeUnit === "month" ? "utcyearmonth" : plan.timeUnit === "year" ? "utcyear" : "utcyearmonthdate",
      };
    case "year":
      return plan.type === "line"
        ? { ...base, type: "quantitative", scale: { zero: false }, axis: { format: "d", tickMinStep: 1 } }
        : { ...base, type: "ordinal", sort: null, axis: { labelAngle: 0 } };
    case "quantitative":
      return { ...base, type: "quantitative", scale: { zero: false } };
    case "ordinal":
      return { ...base, type: "ordinal", sort: null };
    default:
      return { ...base, type: "nominal", sort: null, axis: { labelAngle: -40, labelLimit: 160 } };
  }
}

export function yEncoding(plan: ChartPlan): Record<string, unknown> {
  return {
    field: "value",
    type: "quantitative",
    title: plan.yTitle,
    ...(plan.logScale ? { scale: { type: plan.logScale } } : {}),
  };
}
