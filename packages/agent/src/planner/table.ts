import { isRecord } from "@textide/shared";
import type { ColumnProfile, TableProfile } from "./types.js";
import { TABLE_EXTENSIONS } from "./vocabulary.js";

/*
 * The shapes that the planner's own sandbox code returns (see code/tables.ts), read back from
 * exec_run_js results. They are validated loosely: a result that does not fit is treated as
 * "no information", never trusted blindly.
 */

function toColumn(v: unknown): ColumnProfile | undefined {
  if (!isRecord(v) || typeof v.name !== "string") return undefined;
  const type = (["number", "text", "date", "boolean", "empty"] as const).find((t) => t === v.type) ?? "text";
  const scalar = (x: unknown) => (typeof x === "number" || typeof x === "string" ? x : undefined);
  const min = scalar(v.min);
  const max = scalar(v.max);
  return {
    name: v.name,
    type,
    count: typeof v.count === "number" ? v.count : 0,
    distinct: typeof v.distinct === "number" ? v.distinct : 0,
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
    ...(typeof v.mean === "number" ? { mean: v.mean } : {}),
    ...(typeof v.integer === "boolean" ? { integer: v.integer } : {}),
    examples: Array.isArray(v.examples)
      ? v.examples.filter(
          (x): x is string | number | boolean =>
            typeof x === "string" || typeof x === "number" || typeof x === "boolean",
        )
      : [],
    ...(Array.isArray(v.top)
      ? { top: v.top.filter((t): t is [string, number] => Array.isArray(t) && t.length === 2) }
      : {}),
  };
}

/** Reads one table profile; undefined when the value is not one. */
export function toTableProfile(v: unknown): TableProfile | undefined {
  if (!isRecord(v) || typeof v.path !== "string") return undefined;
  const columns = Array.isArray(v.columns)
    ? v.columns.map(toColumn).filter((c): c is ColumnProfile => c !== undefined)
    : [];
  return {
    path: v.path,
    ...(typeof v.sheet === "string" ? { sheet: v.sheet } : {}),
    ...(Array.isArray(v.sheets) ? { sheets: v.sheets.filter((s): s is string => typeof s === "string") } : {}),
    rows: typeof v.rows === "number" ? v.rows : 0,
    columns,
    sample: Array.isArray(v.sample) ? v.sample.filter(isRecord) : [],
    ...(typeof v.error === "string" ? { error: v.error } : {}),
  };
}

/** The `tables` array of an inspect or describe result. */
export function tablesOf(result: unknown): TableProfile[] {
  if (!isRecord(result) || !Array.isArray(result.tables)) return [];
  return result.tables.map(toTableProfile).filter((t): t is TableProfile => t !== undefined);
}

export function isTablePath(path: string): boolean {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext !== undefined && (TABLE_EXTENSIONS as readonly string[]).includes(ext);
}

/** A column that can serve as a time axis: dates, or numbers/strings named like years, months, dates. */
export function isTimeLike(c: ColumnProfile): boolean {
  if (c.type === "date") return true;
  // Units in brackets are not names: "Orbital period (days)" is a duration, not a date.
  const name = c.name.replace(/[([].*?[)\]]/g, " ").toLowerCase();
  if (
    /\b(?:year|yr|date|month|day|week|quarter|time|timestamp|datetime)s?\b|_(?:year|date|month|day|at|time)$|^(?:year|date|month|day|week|time)_/.test(
      c.name
        .replace(/[([].*?[)\]]/g, " ")
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .toLowerCase(),
    )
  ) {
    return c.type === "number" || c.type === "text";
  }
  return isYearValues(c) && /found|establish|built|launch|since|opened|discover/.test(name);
}

/** Integers that all look like years. */
export function isYearValues(c: ColumnProfile): boolean {
  return (
    c.type === "number" &&
    c.integer === true &&
    typeof c.min === "number" &&
    typeof c.max === "number" &&
    c.min >= 1000 &&
    c.max <= 2200
  );
}
