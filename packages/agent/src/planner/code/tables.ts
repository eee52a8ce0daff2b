import { lit, NUM_HELPER, PROFILE_HELPER, SHORT_ROWS } from "./helpers.js";

/*
 * Code that reads tables for the planner: inspect candidates, describe one, preview its first
 * rows. A workbook's sheets come from the host's sheets(path).
 */

/** Reads candidate tables (every sheet of a workbook) and returns their columns, types and 3 rows. */
export function inspectCode(files: readonly string[]): string {
  return `// Inspect ${files.length === 1 ? files[0] : `${files.length} candidate tables`}: columns, inferred types and a few rows
const files = ${lit(files)};
${NUM_HELPER}
${PROFILE_HELPER}
${SHORT_ROWS}
const tables = [];
for (const path of files) {
  const names = await sheets(path);
  for (const sheet of names.length > 0 ? names.slice(0, 8) : [undefined]) {
    const where = sheet === undefined ? { path } : { path, sheet, sheets: names };
    try {
      const rows = await readTable(path, sheet === undefined ? {} : { sheet });
      tables.push({ ...where, rows: rows.length, columns: profile(rows, false), sample: short(rows.slice(0, 3)) });
    } catch (err) {
      tables.push({ ...where, error: String(err?.message ?? err) });
    }
  }
}
return { tables };`;
}

/** Full statistics of one table (one sheet, or every sheet of a workbook). */
export function describeCode(file: string, sheet?: string): string {
  return `// Describe ${file}${sheet ? ` (sheet ${lit(sheet)})` : ""}: columns, types, row count and statistics
const path = ${lit(file)};
${NUM_HELPER}
${PROFILE_HELPER}
${SHORT_ROWS}
const names = await sheets(path);
const wanted = ${sheet === undefined ? "names.length > 0 ? names.slice(0, 8) : [undefined]" : `[${lit(sheet)}]`};
const tables = [];
for (const sheet of wanted) {
  const rows = await readTable(path, sheet === undefined ? {} : { sheet });
  tables.push({ path, ...(sheet === undefined ? {} : { sheet, sheets: names }), rows: rows.length, columns: profile(rows, true), sample: short(rows.slice(0, 3)) });
}
return { tables };`;
}

/** The first rows of a table, for a preview as a markdown table (a sheet named loosely: "dwarf"). */
export function previewCode(file: string, rows: number, sheet?: string): string {
  const pick =
    sheet === undefined
      ? "const sheet = names[0];"
      : `const wanted = ${lit(sheet.toLowerCase())};
const sheet = names.find((s) => s.toLowerCase() === wanted) ?? names.find((s) => s.toLowerCase().includes(wanted)) ?? names[0];`;
  return `// Preview ${file}${sheet ? ` (sheet ${lit(sheet)})` : ""}: the first ${rows} rows
const path = ${lit(file)};
${SHORT_ROWS}
const names = await sheets(path);
${pick}
const rows = await readTable(path, sheet === undefined ? {} : { sheet });
return { path, sheet, sheets: names, rows: rows.length, columns: Object.keys(rows[0] ?? {}), head: short(rows.slice(0, ${rows})) };`;
}
