/*
 * Pieces of the JavaScript the planner sends to exec_run_js, written the way a careful LLM would:
 * plain readable code with the file paths and column names as string literals, so a user reading
 * the tool call (or the audit log) sees exactly what was computed.
 */

export const lit = (v: unknown) => JSON.stringify(v);

/** Numbers from cells that hold "1,234", "$5", "12%" as text, or null. */
export const NUM_HELPER = `const num = (v) => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim().replace(/[\\s,$€£¥%]/g, "");
  return /^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?$/i.test(t) ? Number(t) : null;
};`;

/** Column name, inferred type and summary of every column (full: also mean and frequent values). */
export const PROFILE_HELPER = `function profile(rows, full) {
  const names = [];
  for (const r of rows.slice(0, 500)) for (const k of Object.keys(r)) if (!names.includes(k)) names.push(k);
  const isDate = (v) =>
    typeof v === "string" &&
    (/^\\d{4}-\\d{2}(-\\d{2})?([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$/.test(v.trim()) ||
      /^(\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}|\\d{4}\\/\\d{1,2}\\/\\d{1,2}|[A-Za-z]{3,9}\\.? \\d{1,2},? \\d{4}|\\d{1,2} [A-Za-z]{3,9}\\.? \\d{4})$/.test(v.trim()));
  const isBool = (v) => typeof v === "boolean" || (typeof v === "string" && /^(true|false|yes|no)$/i.test(v.trim()));
  return names.slice(0, 80).map((name) => {
    const vals = rows.map((r) => r[name]).filter((v) => v !== null && v !== undefined && v !== "");
    const nums = vals.map(num).filter((n) => n !== null);
    let type = "text";
    if (vals.length === 0) type = "empty";
    else if (vals.every(isBool)) type = "boolean";
    else if (nums.length >= 0.9 * vals.length) type = "number";
    else if (vals.filter(isDate).length >= 0.9 * vals.length) type = "date";
    const examples = [...new Set(vals)].slice(0, 3).map((v) => (typeof v === "string" && v.length > 40 ? v.slice(0, 40) + "…" : v));
    const col = { name, type, count: vals.length, distinct: new Set(vals.map(String)).size, examples };
    if (type === "number") {
      col.min = nums.reduce((a, b) => Math.min(a, b));
      col.max = nums.reduce((a, b) => Math.max(a, b));
      col.integer = nums.every(Number.isInteger);
      if (full) col.mean = nums.reduce((a, b) => a + b, 0) / nums.length;
    } else if (type === "date") {
      const sorted = vals.map(String).sort();
      col.min = sorted[0];
      col.max = sorted[sorted.length - 1];
    } else if (full && type !== "empty") {
      const freq = new Map();
      for (const v of vals) freq.set(String(v), (freq.get(String(v)) ?? 0) + 1);
      col.top = [...freq].sort((a, b) => b[1] - a[1]).slice(0, 3);
    }
    return col;
  });
}`;

export const SHORT_ROWS = `const short = (rows) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && v.length > 60 ? v.slice(0, 60) + "…" : v])));`;

/** Dates written any way ("01/05/2024", "Jan 5, 2024") as ISO "2024-01-05", so they sort and bucket. */
export const ISO_HELPER = `const iso = (v) => {
  if (typeof v !== "string" || /^\\d{4}-\\d{2}/.test(v)) return v;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return v;
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 10);
};`;
