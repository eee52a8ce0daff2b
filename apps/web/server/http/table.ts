import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import type { TableResponse } from "@textide/shared";
import type { PathPolicy } from "@textide/shared/node";
import readXlsxFile from "read-excel-file/node";
import { AppError } from "../errors.js";
import { sendJson } from "./respond.js";

/** Data rows `GET /api/table` returns; the UI says "first N rows" when a sheet has more. */
const MAX_TABLE_ROWS = 100_000;
/** Workbooks are unzipped in memory: refuse files far beyond what a viewer needs. */
const MAX_WORKBOOK_BYTES = 32 * 1024 * 1024;

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return "";
    const iso = value.toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

/** `GET /api/table?path=&sheet=`: one sheet of an .xlsx workbook as text cells, header row first. */
export async function getTable(deps: { policy: PathPolicy }, url: URL, res: ServerResponse): Promise<void> {
  const input = url.searchParams.get("path");
  if (!input) throw new AppError(400, "bad_request", "Missing `path` query parameter.");
  const target = await deps.policy.resolveExisting(input);
  if (!target.stats.isFile()) throw new AppError(400, "not_a_file", `${target.display} is a directory.`);
  const lower = target.display.toLowerCase();
  if (lower.endsWith(".xls")) {
    throw new AppError(
      415,
      "unsupported_media_type",
      `${target.display} is an Excel 97-2003 (.xls) workbook, which textide cannot read. Re-save it as .xlsx.`,
    );
  }
  if (!lower.endsWith(".xlsx")) {
    throw new AppError(415, "unsupported_media_type", `${target.display} is not an .xlsx workbook.`);
  }
  if (target.stats.size > MAX_WORKBOOK_BYTES) {
    throw new AppError(
      413,
      "too_large",
      `${target.display} is ${target.stats.size} bytes; the table viewer opens workbooks up to ${MAX_WORKBOOK_BYTES} bytes.`,
    );
  }
  let workbook;
  try {
    workbook = await readXlsxFile(await readFile(target.abs));
  } catch (err) {
    throw new AppError(
      415,
      "unsupported_media_type",
      `${target.display} could not be read as an .xlsx workbook (${(err as Error).message}). Check that the file is complete.`,
      { cause: err },
    );
  }
  const sheets = workbook.map((s) => s.sheet);
  const wanted = url.searchParams.get("sheet");
  const chosen = wanted === null || wanted === "" ? workbook[0] : workbook.find((s) => s.sheet === wanted);
  if (!chosen) {
    throw new AppError(
      404,
      "not_found",
      `Sheet ${JSON.stringify(wanted)} not found in ${target.display}; sheets are: ${sheets.map((n) => JSON.stringify(n)).join(", ")}.`,
      { details: { sheets } },
    );
  }
  const [head = [], ...body] = chosen.data;
  const rows = body.slice(0, MAX_TABLE_ROWS).map((r) => r.map(cellText));
  const width = rows.reduce((w, r) => Math.max(w, r.length), head.length);
  const columns = Array.from({ length: width }, (_, i) => cellText(head[i]) || `column ${i + 1}`);
  const answer: TableResponse = {
    path: target.display,
    sheets,
    sheet: chosen.sheet,
    columns,
    rows,
    totalRows: body.length,
    truncated: body.length > MAX_TABLE_ROWS,
    maxRows: MAX_TABLE_ROWS,
  };
  sendJson(res, 200, answer);
}
