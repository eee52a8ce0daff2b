import { createHash } from "node:crypto";
import { closeSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "@textide/shared";
import { SKIPPED_DIRS, commitWrite, entryPath, isFsError, type PathPolicy, walk } from "@textide/shared/node";
import { mimeOf } from "../fs/mime.js";
import { decodePage, detectEncoding } from "../fs/text-decode.js";
import { renderChart } from "./chart.js";
import { ExecError, isExecError } from "./errors.js";
import { EXEC_LIMITS, WRITABLE_EXTENSIONS } from "./limits.js";
import type { WrittenFile } from "./protocol.js";
import { parseTableCached } from "./table-cache.js";

/**
 * The host side of the sandbox API for one run. Every argument arrives copied from untrusted
 * code, so each function validates it; every path goes through the path policy, in which
 * project_root is read-only. All calls share the run's deadline, because the isolate's own
 * timeout does not count time spent here.
 */
export class HostApi {
  readonly outputs: WrittenFile[] = [];
  hostMs = 0;
  /** The last error a host call threw, to classify it when it ends the run uncaught. */
  lastError: ExecError | undefined;
  private bytesWritten = 0;

  constructor(
    private readonly policy: PathPolicy,
    private readonly deadline: number,
    /** Appends to the run's captured console (chart warnings, e.g. a field missing from the data). */
    private readonly log: (level: string, line: string) => void,
    /** Told when a chart starts rendering (the slow part of most runs), for progress reports. */
    private readonly onRender?: (chart: string) => void,
  ) {}

  /** Wraps a host function: deadline check, timing, error classification. */
  guard<A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const started = performance.now();
      try {
        this.checkDeadline(name);
        const result = await fn(...args);
        this.checkDeadline(name);
        return result;
      } catch (err) {
        const e = toExecError(err, name);
        this.lastError = e;
        // A plain Error crosses into the isolate as a copy; the kind stays here in lastError.
        throw new Error(e.message, { cause: err });
      } finally {
        this.hostMs += performance.now() - started;
      }
    };
  }

  async readTable(file: unknown, options: unknown): Promise<unknown> {
    const p = requireString(file, "readTable(path)");
    const opts = (options ?? {}) as { sheet?: unknown };
    const sheet = typeof opts.sheet === "string" || typeof opts.sheet === "number" ? opts.sheet : undefined;
    const { abs, bytes } = await this.readChecked(p);
    const table = await parseTableCached(bytes, abs, sheet === undefined ? {} : { sheet });
    for (const w of table.warnings ?? []) this.log("warn", `readTable ${path.basename(abs)}: ${w}`);
    return table.rows;
  }

  /** The sheet names of a workbook in workbook order; [] for any other table file. */
  async sheets(file: unknown): Promise<string[]> {
    const p = requireString(file, "sheets(path)");
    const { abs, bytes } = await this.readChecked(p);
    if (path.extname(abs).toLowerCase() !== ".xlsx") return [];
    return (await parseTableCached(bytes, abs)).sheets ?? [];
  }

  async readText(file: unknown): Promise<string> {
    const { bytes } = await this.readChecked(requireString(file, "readText(path)"));
    const enc = detectEncoding(bytes.subarray(0, 64 * 1024));
    if (enc.kind === "binary") {
      throw new ExecError(
        "runtime",
        `${file as string} is a binary file; readText reads text. Use readTable for .xlsx.`,
      );
    }
    return decodePage(bytes, enc, true).text;
  }

  async listFiles(dir: unknown): Promise<string[]> {
    const start = dir === undefined || dir === null ? "." : requireString(dir, "listFiles(dir)");
    const resolved = await this.policy.resolveExisting(start).catch((err: unknown) => {
      throw toExecError(err, "listFiles");
    });
    if (!resolved.stats.isDirectory()) throw new ExecError("runtime", `${resolved.display} is a file, not a folder.`);
    const files: string[] = [];
    await walk(resolved.abs, { rootReal: resolved.root.real, skipDirs: SKIPPED_DIRS }, (e) => {
      if (e.type === "file" || e.targetType === "file") files.push(this.policy.display(resolved.root, entryPath(e)));
      return files.length < EXEC_LIMITS.maxListedFiles;
    });
    return files.sort();
  }

  async writeFile(name: unknown, content: unknown): Promise<string> {
    const target = requireString(name, "writeFile(name, content)");
    const data = toBytes(content);
    return this.write(target, data, [...WRITABLE_EXTENSIONS]);
  }

  async chart(
    spec: unknown,
    name: unknown,
    options: unknown,
  ): Promise<{ png?: string; svg?: string; width: number; height: number }> {
    const base = requireString(name, "chart(spec, name)").replace(/\.(png|svg)$/i, "");
    const format = (options as { format?: unknown } | undefined)?.format ?? "png";
    if (format !== "png" && format !== "svg" && format !== "both") {
      throw new ExecError("runtime", `chart format must be "png", "svg" or "both", not ${JSON.stringify(format)}.`);
    }
    this.onRender?.(base);
    const rendered = await renderChart(spec, format, { deadline: this.deadline });
    for (const w of rendered.warnings ?? []) this.log("warn", `chart ${base}: ${w}`);
    const out: { png?: string; svg?: string; width: number; height: number } = {
      width: rendered.width,
      height: rendered.height,
    };
    if (rendered.png) out.png = await this.write(`${base}.png`, rendered.png, [".png"]);
    if (rendered.svg) out.svg = await this.write(`${base}.svg`, Buffer.from(rendered.svg, "utf8"), [".svg"]);
    return out;
  }

  /** Reads a file through the descriptor the policy opened and checked (no second lookup by path). */
  private async readChecked(p: string): Promise<{ abs: string; bytes: Buffer }> {
    const opened = await this.policy.openExisting(p).catch((err: unknown) => {
      throw toExecError(err, "read");
    });
    try {
      if (!opened.stats.isFile())
        throw new ExecError("runtime", `${opened.display} is a folder; use listFiles("${opened.display}").`);
      if (opened.stats.size > BigInt(EXEC_LIMITS.maxReadBytes)) {
        throw new ExecError("limit", `${opened.display} is larger than ${EXEC_LIMITS.maxReadBytes / 1048576} MB.`);
      }
      return { abs: opened.abs, bytes: readFileSync(opened.fd) };
    } finally {
      closeSync(opened.fd);
    }
  }

  private async write(name: string, data: Uint8Array, allowed: string[]): Promise<string> {
    const ext = path.extname(name).toLowerCase();
    if (!allowed.includes(ext)) {
      throw new ExecError(
        "policy",
        `writeFile cannot create ${ext || "extension-less"} files; allowed: ${allowed.join(" ")}.`,
      );
    }
    if (this.outputs.length >= EXEC_LIMITS.maxFilesPerRun) {
      throw new ExecError("limit", `At most ${EXEC_LIMITS.maxFilesPerRun} files per run.`);
    }
    if (data.byteLength > EXEC_LIMITS.maxBytesPerFile) {
      throw new ExecError(
        "limit",
        `${name} would be ${data.byteLength} bytes; the limit is ${EXEC_LIMITS.maxBytesPerFile} per file.`,
      );
    }
    if (this.bytesWritten + data.byteLength > EXEC_LIMITS.maxBytesPerRun) {
      throw new ExecError("limit", `This run would write more than ${EXEC_LIMITS.maxBytesPerRun} bytes in total.`);
    }
    // Names are relative to generated_assets; a leading `generated_assets/` or an absolute path
    // inside it is accepted too (the policy rejects anything else).
    const rel = path.isAbsolute(name) || name.startsWith(`${ROOT.assets}/`) ? name : `${ROOT.assets}/${name}`;
    if (this.policy.locate(rel).root.name !== ROOT.assets) {
      throw new ExecError("policy", "Sandboxed code writes only under generated_assets/.");
    }
    const file = await this.policy
      .withParent(rel, "write", { createParents: true }, async (entry) => {
        await commitWrite(entry, data);
        return entry;
      })
      .catch((err: unknown) => {
        throw toExecError(err, "writeFile");
      });
    this.bytesWritten += data.byteLength;
    this.outputs.push({
      path: file.display,
      bytes: data.byteLength,
      mime: mimeOf(file.name),
      sha256: createHash("sha256").update(data).digest("hex"),
    });
    return file.display;
  }

  private checkDeadline(name: string): void {
    if (Date.now() > this.deadline) throw new ExecError("timeout", `Time limit reached during ${name}.`);
  }
}

function requireString(v: unknown, what: string): string {
  if (typeof v !== "string" || v.length === 0)
    throw new ExecError("runtime", `${what}: expected a non-empty string, got ${typeof v}.`);
  if (v.length > 4096) throw new ExecError("runtime", `${what}: path too long.`);
  return v;
}

function toBytes(content: unknown): Uint8Array {
  if (typeof content === "string") return Buffer.from(content, "utf8");
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  if (content !== null && typeof content === "object") return Buffer.from(JSON.stringify(content, null, 2), "utf8");
  throw new ExecError("runtime", "writeFile content must be a string, a Uint8Array, or a JSON-serialisable object.");
}

function toExecError(err: unknown, during: string): ExecError {
  if (isExecError(err)) return err;
  if (isFsError(err)) {
    const kind =
      err.code === "not_found" || err.code === "is_directory" || err.code === "not_a_directory" ? "runtime" : "policy";
    const hint = err.message
      .replace(/fs_search_files or fs_list_directory/g, "listFiles()")
      .replace(/Use fs_list_directory on `\.` to see what exists\./g, "Use listFiles() to see what exists.");
    return new ExecError(kind, hint);
  }
  return new ExecError("runtime", `${during} failed: ${(err as Error)?.message ?? String(err)}`);
}
