import { bar } from "./bar.js";
import { histogram } from "./histogram.js";
import { line } from "./line.js";
import { pie } from "./pie.js";
import type { ChartKind } from "./resolve.js";
import { scatter } from "./scatter.js";
import { planGrouped } from "./grouped.js";
import { planInput } from "./resolve.js";
import type { ChartType, Intent, PlanResult, TableProfile } from "../types.js";

/* Every chart type by name: its planner, its spec and its layout code. */

export const CHART_KINDS: Record<ChartType, ChartKind> = { bar, pie, line, scatter, histogram };

/** Builds a chart plan for one table, or says why the request does not fit it. */
export function planChart(intent: Intent, table: TableProfile): PlanResult {
  const columns = table.columns.filter((c) => c.type !== "empty");
  if (columns.length === 0 || table.rows === 0) return { ok: false, reason: `${table.path} has no rows.`, fit: -5 };
  const input = planInput(intent, table, columns);
  const kind = intent.chartType === undefined ? undefined : CHART_KINDS[intent.chartType];
  return kind?.plan(input) ?? planGrouped(input);
}
