import { chartDone, rankDone } from "../answers.js";
import { chartCode, rankCode } from "../code/chart.js";
import { inspectCode } from "../code/tables.js";
import { execOutcome, failureText } from "../results.js";
import type { ChartPlan, Decision } from "../types.js";
import { WIRE } from "../types.js";
import { answer, call, EXEC_TIMEOUT_MS, isDecision, missingTool, stepsOf, type Ctx, type Flow } from "./context.js";
import { chooseTable, filesToInspect, findTables, inspected } from "./steps.js";

/*
 * Chart and rank: find the tables, inspect them, plan against the best one's columns, then draw
 * the chart (or compute the ranking) with exec_run_js; one simpler retry when drawing fails.
 */

function simplify(plan: ChartPlan): ChartPlan {
  const { series: _series, ...rest } = plan;
  return { ...rest, measures: plan.measures.slice(0, 1), logScale: false, otherBucket: false };
}

function chartOrRank(ctx: Ctx, mode: "chart" | "rank"): Decision {
  if (!ctx.has(WIRE.exec)) return missingTool(WIRE.exec);
  const candidates = findTables(ctx);
  if (isDecision(candidates)) return candidates;
  const tables = inspected(ctx, candidates);
  if (isDecision(tables)) return tables;
  const { table, plan: result, ties } = chooseTable(ctx, tables, true);
  if (!result || !result.ok) {
    const cols = table.columns.map((c) => `${c.name} (${c.type})`).join(", ");
    return answer(
      `Could not make ${mode === "rank" ? "a ranking" : "a chart"} for that: ${result && !result.ok ? result.reason : "no plan"}\n` +
        `The closest table is ${table.path}${table.sheet ? ` (sheet "${table.sheet}")` : ""} with columns: ${cols}.\n\n` +
        `Name a numeric column to measure and a column to group by, e.g. "bar chart of <number column> by <category column>".`,
    );
  }
  // A ranking answers with numbers: with words of the question left out it would answer another question.
  if (mode === "rank" && result.plan.ignored) {
    const cols = table.columns.map((c) => `${c.name} (${c.type})`).join(", ");
    return answer(
      `Could not map ${result.plan.ignored.map((w) => `"${w}"`).join(", ")} to a column of ${table.path}, so nothing was ranked: ` +
        `an answer without ${result.plan.ignored.length === 1 ? "it" : "them"} would answer a different question.\n\n` +
        `${table.path} has the columns: ${cols}.`,
    );
  }
  const plan =
    ties.length > 0
      ? {
          ...result.plan,
          notes: [...result.plan.notes, `Other files fit as well: ${ties.join(", ")}; name the file to use another.`],
        }
      : result.plan;
  const inspectIndex = ctx.steps.lastIndexOf(stepsOf(ctx, "inspect").pop()!);
  const attempts = ctx.steps.slice(inspectIndex + 1).filter((s) => s.kind === "chart" || s.kind === "rank");
  const code = (p: ChartPlan) => (mode === "rank" ? rankCode(p) : chartCode(p));
  const last = attempts[attempts.length - 1];
  const marker = { step: mode, file: plan.file } as const;
  if (!last) return call(WIRE.exec, { code: code(plan), timeoutMs: EXEC_TIMEOUT_MS }, marker);
  const outcome = execOutcome(last);
  if (outcome?.ok) return answer(mode === "rank" ? rankDone(plan, outcome) : chartDone(plan, outcome));
  const why = failureText(last);
  // The file changed under us (a column vanished): look again, once.
  if (/column not found/i.test(why) && stepsOf(ctx, "inspect").length < 2) {
    return call(
      WIRE.exec,
      { code: inspectCode(filesToInspect(ctx, candidates)), timeoutMs: EXEC_TIMEOUT_MS },
      { step: "inspect" },
    );
  }
  if (attempts.length < 2 && mode === "chart") {
    return call(WIRE.exec, { code: code(simplify(plan)), timeoutMs: EXEC_TIMEOUT_MS }, marker);
  }
  return answer(`The ${mode === "rank" ? "ranking" : "chart"} of ${plan.file} could not be made: ${why}`);
}

export const chartFlow: Flow = (ctx) => chartOrRank(ctx, "chart");
export const rankFlow: Flow = (ctx) => chartOrRank(ctx, "rank");
