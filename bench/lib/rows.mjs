// Result rows of a suite's table (see report.mjs). No anchor does these, so the anchor and ratio
// columns stay empty.

/** A number reported without a pass/fail target. */
export function info(metric, value, unit) {
  return { metric, textide: value, unit, pass: null };
}

/** A number with a target; `ok(value)` decides pass. */
export function gate(metric, value, unit, target, ok) {
  return { metric, textide: value, unit, target, pass: ok(value) };
}
