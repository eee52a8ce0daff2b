import type { ColumnProfile, ColumnType } from "../types.js";

/*
 * SQL text for sql_query (DuckDB): quoting, the schema and value queries the planner runs before
 * it compiles a request, and reading their results back.
 */

/** A column name as an identifier: "Diameter (km)". */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A string literal: 'Mars'. */
export const text = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** A workspace file as a table. */
export const table = (path: string) => text(path);

export interface SqlColumn {
  name: string;
  /** DuckDB's type name: BIGINT, DOUBLE, VARCHAR, DATE, … */
  sqlType: string;
  type: ColumnType;
}

export function columnType(sqlType: string): ColumnType {
  const t = sqlType.toUpperCase();
  if (/INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC/.test(t)) return "number";
  if (/BOOL/.test(t)) return "boolean";
  if (/DATE|TIME/.test(t)) return "date";
  return "text";
}

/** The profile shape the matcher reads (counts unknown here). */
export function asProfile(c: SqlColumn): ColumnProfile {
  return { name: c.name, type: c.type, count: 0, distinct: 0, examples: [] };
}

export function schemaSql(path: string): string {
  return `DESCRIBE SELECT * FROM ${table(path)}`;
}

/** Columns from a DESCRIBE result (rows of [column_name, column_type, …]). */
export function schemaColumns(structured: Record<string, unknown> | undefined): SqlColumn[] {
  const rows = Array.isArray(structured?.rows) ? (structured.rows as unknown[]) : [];
  return rows.flatMap((r) => {
    if (!Array.isArray(r) || typeof r[0] !== "string") return [];
    const sqlType = typeof r[1] === "string" ? r[1] : "VARCHAR";
    return [{ name: r[0], sqlType, type: columnType(sqlType) }];
  });
}

/** A case-insensitive whole-word pattern for a phrase ("mars" → (?i)\bmars\b). */
export function wordPattern(phrase: string): string {
  return `(?i)\\b${phrase.split(/\s+/).join("\\s+")}\\b`;
}

/**
 * The distinct values of the text columns that contain one of the phrases as whole words: how the
 * planner learns that "mars" is a value of `target` ("Mars (Gale crater)") or "japan" of `Origin`.
 */
export function valuesSql(path: string, columns: SqlColumn[], phrases: string[]): string {
  const pattern = `(?i)\\b(${phrases.map((p) => p.split(/\s+/).join("\\s+")).join("|")})\\b`;
  return columns
    .filter((c) => c.type === "text")
    .map(
      (c) =>
        `SELECT DISTINCT ${text(c.name)} AS "column", CAST(${ident(c.name)} AS VARCHAR) AS "value" FROM ${table(path)} ` +
        `WHERE regexp_matches(CAST(${ident(c.name)} AS VARCHAR), ${text(pattern)})`,
    )
    .join("\nUNION ALL\n");
}

export interface ValueHit {
  column: string;
  value: string;
}

export function valueHits(structured: Record<string, unknown> | undefined): ValueHit[] {
  const rows = Array.isArray(structured?.rows) ? (structured.rows as unknown[]) : [];
  return rows.flatMap((r) =>
    Array.isArray(r) && typeof r[0] === "string" && typeof r[1] === "string" ? [{ column: r[0], value: r[1] }] : [],
  );
}

/** A result's columns and rows as objects. */
export function resultRows(structured: Record<string, unknown> | undefined): {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  rowCount: number;
  truncated: boolean;
} {
  const columns = Array.isArray(structured?.columns)
    ? (structured.columns as { name?: unknown; type?: unknown }[]).map((c) => ({
        name: String(c.name),
        type: String(c.type),
      }))
    : [];
  const raw = Array.isArray(structured?.rows) ? (structured.rows as unknown[]) : [];
  const rows = raw.map((r) =>
    Object.fromEntries(columns.map((c, i) => [c.name, Array.isArray(r) ? (r[i] as unknown) : undefined])),
  );
  return {
    columns,
    rows,
    rowCount: typeof structured?.rowCount === "number" ? structured.rowCount : rows.length,
    truncated: structured?.truncated === true,
  };
}
