import { markdownTable } from "../answers.js";
import { fmt, str } from "../text.js";
import type { Compiled } from "./compile.js";
import { AGG_LABEL } from "./compile.js";
import type { SqlColumn } from "./sql.js";
import { resultRows } from "./sql.js";

/*
 * Answers for transforms: the computed numbers first, then the SQL that computed them (the same
 * statement the tool card shows), so a person can check or reuse it.
 */

const MAX_LISTED = 20;

function where(c: Compiled): string {
  return c.conditions.length > 0 ? ` where ${c.conditions.map((x) => x.says).join(" and ")}` : "";
}

function sqlBlock(sql: string): string {
  return `\n\n\`\`\`sql\n${sql}\n\`\`\``;
}

function cell(v: unknown): string {
  return typeof v === "number" ? fmt(v) : str(v, "—");
}

/** The answer for a successful sql_query call. */
export function transformDone(
  c: Compiled,
  structured: Record<string, unknown> | undefined,
  chartPath?: string,
): string {
  const r = resultRows(structured);
  const rows = r.rows;
  const first = rows[0] ?? {};
  const firstValue = (key: string) => first[key];
  const what = c.entity ?? "rows";
  let head: string;
  switch (c.shape) {
    case "count":
      head = `**${cell(firstValue("count"))}** ${what} in ${c.file}${where(c)}.`;
      break;
    case "aggregate": {
      const name = `${AGG_LABEL[c.agg!].toLowerCase()} ${c.measure!}`;
      head = `${AGG_LABEL[c.agg!]} ${c.measure!}: **${cell(firstValue(name))}** (${c.file}, ${cell(firstValue("values"))} values${where(c)}).`;
      break;
    }
    case "grouped": {
      const key = r.columns[1]?.name ?? "";
      const label = c.agg === "count" ? `Number of ${what}` : `${AGG_LABEL[c.agg!]} ${c.measure!}`;
      const listed = rows.slice(0, MAX_LISTED).map((x) => `${str(x[c.group!], "—")} (${cell(x[key])})`);
      head =
        `${label} per ${c.group!} in ${c.file}${where(c)}: ${listed.join(", ")}` +
        `${rows.length > MAX_LISTED ? `, … (${rows.length} groups)` : ""}.`;
      break;
    }
    case "distinct": {
      const values = rows.map((x) => str(x[c.distinct!], "—"));
      head =
        `**${r.rowCount}** distinct values of ${c.distinct!} in ${c.file}${where(c)}: ` +
        `${values.slice(0, MAX_LISTED * 2).join(", ")}${values.length > MAX_LISTED * 2 ? ", …" : ""}.`;
      break;
    }
    case "copy": {
      const out = Array.isArray(structured?.outputs)
        ? (structured.outputs as { path?: unknown; bytes?: unknown }[])
        : [];
      const written = out.map((o) => String(o.path)).find(Boolean) ?? c.output!;
      const count = firstValue("Count") ?? firstValue("count");
      head = `Wrote ${written} — **${cell(count)}** rows of ${c.file}${where(c)}.`;
      break;
    }
    case "join":
      head =
        `Joined on ${c.group!}: **${r.rowCount}** rows${r.truncated ? " (first ones shown)" : ""}.\n\n` +
        markdownTable(
          r.columns.map((x) => x.name),
          rows.slice(0, 10),
        );
      break;
    default: {
      const names = c.label ? rows.slice(0, MAX_LISTED).map((x) => str(x[c.label!], "—")) : [];
      head =
        `**${r.rowCount}**${r.truncated ? "+" : ""} ${what} in ${c.file}${where(c)}` +
        (names.length > 0 ? `: ${names.join(", ")}${rows.length > names.length ? ", …" : ""}.` : ".") +
        (rows.length > 0
          ? `\n\n${markdownTable(
              r.columns.map((x) => x.name),
              rows.slice(0, 10),
            )}`
          : "");
    }
  }
  const chart = chartPath ? `\n\nCreated ${chartPath} from these results.` : "";
  return `${head}${chart}${sqlBlock(c.sql)}`;
}

/** The honest answer when words of the request named nothing in the file. */
export function unmappedAnswer(file: string, unmapped: string[], columns: SqlColumn[], reason?: string): string {
  const quoted = unmapped.map((w) => `"${w}"`).join(", ");
  const cols = columns.map((c) => `${c.name} (${c.type})`).join(", ");
  return [
    `Could not map ${quoted} to a column or a value of ${file}${reason ? ` (looked for ${reason})` : ""}, so nothing was computed: an answer without ${unmapped.length === 1 ? "it" : "them"} would answer a different question.`,
    "",
    `${file} has the columns: ${cols}.`,
    "",
    `What I can do instead: filter on those columns by value or comparison (e.g. "rows where ${columns.find((c) => c.type === "number")?.name ?? "<number column>"} is over 10"), ` +
      `count, sum, average, median, min or max them, group "per <column>", sort, list distinct values, or name another file.`,
  ].join("\n");
}
