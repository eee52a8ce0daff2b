import { describeDone } from "../answers.js";
import { describeCode } from "../code/tables.js";
import { pickSheet } from "../match.js";
import { execOutcome, failureText } from "../results.js";
import { isTablePath, tablesOf } from "../table.js";
import { WIRE } from "../types.js";
import { answer, call, EXEC_TIMEOUT_MS, isDecision, stepsOf, type Flow } from "./context.js";
import { previewFlow } from "./preview.js";
import { chooseTable, findTables, inspected } from "./steps.js";

/* Describe: columns, types and statistics of the table that fits best (text files get a preview). */

export const describeFlow: Flow = (ctx) => {
  const { intent } = ctx;
  if (intent.explicitFile && !isTablePath(intent.explicitFile)) return previewFlow(ctx);
  if (!ctx.has(WIRE.exec)) return previewFlow(ctx);
  const candidates = findTables(ctx);
  if (isDecision(candidates)) return candidates;
  const tablesOnly = candidates.filter((c) => isTablePath(c.path));
  if (tablesOnly.length === 0) return previewFlow(ctx);

  let target: string | undefined;
  const [first, second] = tablesOnly;
  if (intent.explicitFile || (first && first.score >= 0.8 && (!second || first.score - second.score >= 0.5))) {
    target = first!.path;
  } else {
    const tables = inspected(ctx, tablesOnly);
    if (isDecision(tables)) return tables;
    target = chooseTable(ctx, tables, false).table.path;
  }
  const describes = stepsOf(ctx, "describe");
  const last = describes[describes.length - 1];
  if (!last)
    return call(
      WIRE.exec,
      { code: describeCode(target), timeoutMs: EXEC_TIMEOUT_MS },
      { step: "describe", file: target },
    );
  const outcome = execOutcome(last);
  if (!outcome?.ok) return answer(`Could not describe ${target}: ${failureText(last)}`);
  let tables = tablesOf(outcome.result);
  if (intent.sheet && tables.length > 1) {
    const sheet = pickSheet(
      intent.sheet,
      tables.map((t) => t.sheet ?? ""),
    );
    if (sheet) tables = tables.filter((t) => t.sheet === sheet);
  }
  return answer(describeDone(tables));
};
