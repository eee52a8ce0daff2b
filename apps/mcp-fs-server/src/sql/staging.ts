import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { ROOT } from "@textide/shared";
import { isFsError, isTableError, readXlsx, type OpenedPath, type PathPolicy } from "@textide/shared/node";
import { ExecError } from "../exec/errors.js";
import { findLiterals, sqlString } from "./literals.js";
import { SQL_LIMITS } from "./limits.js";

/*
 * DuckDB never sees a workspace path. Every quoted workspace file in the SQL is opened through the
 * path policy (one checked descriptor, so a symlink swapped in later changes nothing), copied from
 * that descriptor into this process's scratch folder, and the literal is rewritten to the copy.
 * DuckDB may touch only the scratch folder (`allowed_directories`), so a path that was not rewritten
 * (outside the roots, a glob, an E'…' string) finds nothing. COPY targets are rewritten to scratch
 * files too; the caller commits them into generated_assets atomically once every statement succeeded.
 * Copies are kept (keyed by inode, size and times) so repeated queries on an unchanged file reuse them.
 */

/** Files DuckDB reads by extension; .xlsx goes through textide's own reader first. */
const READABLE = new Set([".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet", ".xlsx"]);
/** Formats COPY … TO writes, chosen by DuckDB from the extension. */
export const WRITABLE = new Set([".csv", ".json", ".parquet"]);
/** Keywords after which a literal names a table, so a missing file is an error rather than a value. */
const TABLE_POSITION = new Set(["FROM", "JOIN", "DESCRIBE", "SUMMARIZE"]);
/** Text tables that are converted to Parquet once when named as a table (see `Converter`). */
const CONVERTIBLE = new Set([".csv", ".tsv"]);

/**
 * Writes `SELECT * FROM <from>` as Parquet to `dest` (throws when DuckDB cannot read it); `from` is a
 * quoted path or a read_csv(…) call. A CSV is parsed again on every query that scans it; the Parquet
 * copy holds the same columns and types (those `FROM 'x.csv'` infers) and is read many times faster.
 * Functions such as read_csv('x.csv', …) still get the CSV itself, since their options change how it
 * is read.
 */
export type Converter = (from: string, dest: string) => Promise<void>;

export interface PlannedOutput {
  /** Workspace path (`generated_assets/…`). */
  display: string;
  /** Where DuckDB writes it. */
  scratch: string;
}

export interface Rewritten {
  sql: string;
  outputs: PlannedOutput[];
  /** Scratch path → workspace path, to put the user's names back into error messages. */
  names: Map<string, string>;
}

interface CacheEntry {
  file: string;
  bytes: number;
}

export class Staging {
  private readonly cache = new Map<string, CacheEntry>();
  private cachedBytes = 0;
  private outputSeq = 0;
  readonly inDir: string;
  readonly outDir: string;

  constructor(
    private readonly policy: PathPolicy,
    readonly scratch: string,
  ) {
    this.inDir = path.join(scratch, "in");
    this.outDir = path.join(scratch, "out");
    mkdirSync(this.inDir, { recursive: true });
    mkdirSync(this.outDir, { recursive: true });
  }

  /** Rewrites every workspace path in `sql` to a scratch path. Throws ExecError (policy, runtime, limit). */
  async rewrite(sql: string, convert?: Converter): Promise<Rewritten> {
    const names = new Map<string, string>();
    const outputs: PlannedOutput[] = [];
    let out = "";
    let at = 0;
    for (const lit of findLiterals(sql)) {
      const replacement =
        lit.before === "TO"
          ? this.planOutput(lit.value, outputs)
          : await this.stageInput(lit.value, lit.before, convert);
      if (replacement === undefined) continue;
      names.set(replacement, lit.value);
      out += sql.slice(at, lit.start) + sqlString(replacement);
      at = lit.end;
    }
    return { sql: out + sql.slice(at), outputs, names };
  }

  private planOutput(value: string, outputs: PlannedOutput[]): string {
    const ext = path.extname(value).toLowerCase();
    let located;
    try {
      located = this.policy.locate(value);
    } catch (err) {
      throw asExecError(err, value);
    }
    if (located.root.name !== ROOT.assets) {
      throw new ExecError(
        "policy",
        `COPY writes only under generated_assets/ (the project is read-only here): write TO 'generated_assets/${path.basename(value)}'.`,
      );
    }
    if (!WRITABLE.has(ext)) {
      throw new ExecError(
        "policy",
        `COPY … TO writes ${[...WRITABLE].join(" ")} files; ${JSON.stringify(value)} has ${ext ? `the extension ${ext}` : "no extension"}.`,
      );
    }
    const scratch = path.join(this.outDir, `${++this.outputSeq}${ext}`);
    outputs.push({ display: this.policy.display(located.root, located.candidate), scratch });
    return scratch;
  }

  /** The scratch copy for a workspace file named in the SQL, or undefined to leave the literal alone. */
  private async stageInput(value: string, before: string, convert?: Converter): Promise<string | undefined> {
    const { file, sheet } = splitSheet(value);
    const ext = path.extname(file).toLowerCase();
    if (!READABLE.has(ext)) return undefined;
    let opened: OpenedPath;
    try {
      opened = await this.policy.openExisting(file);
    } catch (err) {
      // A value such as WHERE name = 'x.csv' is no file; in FROM/JOIN a missing file is the error.
      if (isFsError(err) && err.code === "not_found" && !TABLE_POSITION.has(before)) return undefined;
      throw asExecError(err, file);
    }
    try {
      if (!opened.stats.isFile()) throw new ExecError("runtime", `${opened.display} is a folder, not a table file.`);
      if (opened.stats.size > BigInt(SQL_LIMITS.maxInputBytes)) {
        throw new ExecError(
          "limit",
          `${opened.display} is larger than ${SQL_LIMITS.maxInputBytes / 1048576} MB, the most sql_query reads from one file.`,
        );
      }
      const s = opened.stats;
      const key = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${sheet ?? ""}`;
      const name = createHash("sha256").update(key).digest("hex").slice(0, 24);
      const copy = await this.cached(key, () =>
        ext === ".xlsx"
          ? this.stageWorkbook(opened, sheet, path.join(this.inDir, name))
          : Promise.resolve(copyFromDescriptor(opened.fd, path.join(this.inDir, `${name}${ext}`))),
      );
      // A sheet with a header and no rows is staged as a header-only CSV (see stageWorkbook), read
      // with its first line as the header even where DuckDB would guess it to be data ("2020","2021").
      const headerOnly = ext === ".xlsx" && copy.endsWith(".csv");
      if (!convert || !(CONVERTIBLE.has(ext) || headerOnly) || !TABLE_POSITION.has(before)) return copy;
      // A file DuckDB cannot convert is queried as it is, so the error the model sees is the real one.
      const dest = path.join(this.inDir, `${name}.parquet`);
      const from = headerOnly ? `read_csv(${sqlString(copy)}, header = true, all_varchar = true)` : sqlString(copy);
      const parquet = await this.cached(`${key}:parquet`, async () => {
        await convert(from, dest);
        return { file: dest, bytes: statSync(dest).size };
      }).catch(() => {
        rmSync(dest, { force: true });
        return undefined;
      });
      return parquet ?? copy;
    } finally {
      closeSync(opened.fd);
    }
  }

  /**
   * One sheet as newline-delimited JSON objects (`base`.json), read by the reader exec_run_js's
   * readTable uses; a sheet with a header and no rows as a CSV of that header alone (`base`.csv):
   * NDJSON cannot hold columns without rows.
   */
  private async stageWorkbook(opened: OpenedPath, sheet: string | undefined, base: string): Promise<CacheEntry> {
    let table;
    const bytes = readFileSync(opened.fd);
    try {
      try {
        table = await readXlsx(bytes, sheet === undefined ? {} : { sheet });
      } catch (err) {
        // '#2' is the second sheet unless a sheet is named "2".
        if (!(isTableError(err) && err.code === "sheet_not_found" && /^\d+$/.test(sheet ?? ""))) throw err;
        table = await readXlsx(bytes, { sheet: Number(sheet) });
      }
    } catch (err) {
      if (isTableError(err) && err.code === "sheet_not_found") {
        throw new ExecError(
          "runtime",
          `${err.message} Name a sheet after '#': FROM '${opened.display}#${err.details.sheets?.[0] ?? "Sheet1"}'.`,
        );
      }
      throw new ExecError("runtime", `${opened.display}: ${(err as Error).message}`);
    }
    if (table.columns.length === 0)
      throw new ExecError("runtime", `Sheet "${table.sheet}" of ${opened.display} is empty.`);
    // A column holding cells of different kinds (numbers and text, say) goes in as text throughout:
    // DuckDB would type it VARCHAR anyway but keep JSON quotes on the strings ('"x"').
    const mixed = table.columns.map((_, i) => {
      const kinds = new Set(
        table.rows
          .map((row) => row[i])
          .filter((v) => v !== null && v !== undefined)
          .map((v) => typeof v),
      );
      return kinds.size > 1;
    });
    const lines = table.rows.map((row) => {
      const obj: Record<string, unknown> = {};
      table.columns.forEach((c, i) => {
        const v = row[i] ?? null;
        obj[c] = mixed[i] && v !== null ? String(v) : v;
      });
      return JSON.stringify(obj);
    });
    const headerOnly = lines.length === 0;
    const file = `${base}${headerOnly ? ".csv" : ".json"}`;
    const text = headerOnly ? table.columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(",") : lines.join("\n");
    const data = Buffer.from(text + "\n", "utf8");
    const fd = openSync(file, "w", 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    return { file, bytes: data.byteLength };
  }

  /** The cached scratch file for `key`, made by `make` when missing. */
  private async cached(key: string, make: () => Promise<CacheEntry>): Promise<string> {
    const hit = this.cache.get(key);
    if (hit) {
      // Map order is the eviction order: a file used again moves to the back.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit.file;
    }
    const entry = await make();
    this.remember(key, entry);
    return entry.file;
  }

  private remember(key: string, entry: CacheEntry): void {
    this.cache.set(key, entry);
    this.cachedBytes += entry.bytes;
    for (const [k, e] of this.cache) {
      if (this.cachedBytes <= SQL_LIMITS.maxCacheBytes || k === key) break;
      rmSync(e.file, { force: true });
      this.cache.delete(k);
      this.cachedBytes -= e.bytes;
    }
  }

  /** Removes the scratch files of planned outputs that were not committed. */
  discard(outputs: readonly PlannedOutput[]): void {
    for (const o of outputs) rmSync(o.scratch, { recursive: true, force: true });
  }

  /** Bytes held in the copy cache (tests, logs). */
  get bytes(): number {
    return this.cachedBytes;
  }
}

/** `data/planets.xlsx#Moons` → the workbook and its sheet; any other path as it is. */
export function splitSheet(value: string): { file: string; sheet?: string } {
  const hash = value.lastIndexOf("#");
  if (hash > 0 && value.slice(0, hash).toLowerCase().endsWith(".xlsx")) {
    return { file: value.slice(0, hash), sheet: value.slice(hash + 1) };
  }
  return { file: value };
}

/** Copies an open file into a new scratch file through its descriptor (never by its path). */
function copyFromDescriptor(fd: number, file: string): CacheEntry {
  const out = openSync(file, "w", 0o600);
  const buf = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  try {
    for (let n = readSync(fd, buf, 0, buf.length, bytes); n > 0; n = readSync(fd, buf, 0, buf.length, bytes)) {
      writeSync(out, buf, 0, n);
      bytes += n;
      if (bytes > SQL_LIMITS.maxInputBytes)
        throw new ExecError("limit", "The file grew past the read limit while it was copied.");
    }
  } catch (err) {
    closeSync(out);
    rmSync(file, { force: true });
    throw err;
  }
  closeSync(out);
  return { file, bytes: statSync(file).size };
}

function asExecError(err: unknown, value: string): ExecError {
  if (isFsError(err)) {
    if (err.code === "not_found") {
      return new ExecError(
        "runtime",
        `${value} does not exist. Find the file's workspace path with fs_search_files (e.g. 'data/${path.basename(value)}').`,
      );
    }
    return new ExecError("policy", err.message);
  }
  return err instanceof ExecError ? err : new ExecError("runtime", (err as Error).message);
}
