import { read } from "node:fs";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import Papa from "papaparse";
import { TableError } from "./cells.js";
import {
  type DelimitedFormat,
  type DelimitedProblem,
  SAMPLE_BYTES,
  cellDecoder,
  cleanRow,
  delimitedFormat,
  isBlankRow,
  papaOptions,
  quoteProblem,
  shapeTable,
} from "./delimited.js";

/** Data rows between two remembered byte offsets: a page read parses at most this many extra rows. */
const STRIDE = 64;
/** Row groups kept parsed between page reads (scrolling back and forth re-reads nothing). */
const CACHED_GROUPS = 256;
const CHUNK_BYTES = 1024 * 1024;

const readAt = promisify(read);

/** Bytes `start` … `end - 1` of an open file (fewer at its end). */
async function readRange(fd: number, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, end - start));
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await readAt(fd, buf, done, buf.length - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

/**
 * A CSV/TSV file of any size read with `readDelimited`'s rules without holding it in memory: one pass
 * counts the rows, notes the byte offset of every 64th row and checks the encoding; rows are then read
 * by position, a few kilobytes at a time. Every read goes through a descriptor the caller opened (and
 * checked) for that request, of the same file version the index was made from. UTF-16 files (which
 * need decoding before parsing) are not read this way: `open` throws TableError `unreadable` with
 * reason `utf-16`.
 */
export class DelimitedFile {
  private readonly groups = new Map<number, string[][]>();

  private constructor(
    readonly columns: string[],
    /** Data rows (the header row excluded): an exact count. */
    readonly rowCount: number,
    readonly format: DelimitedFormat,
    readonly encoding: "utf-8" | "windows-1252",
    readonly problems: DelimitedProblem[],
    private readonly offsets: number[],
    private readonly end: number,
  ) {}

  /** Reads the whole file once (streamed). `fileName` decides the delimiter rule (.tsv / .csv). */
  static async open(fd: number, fileName: string): Promise<DelimitedFile> {
    const head = await readRange(fd, 0, SAMPLE_BYTES);
    if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
      throw new TableError("unreadable", "UTF-16 text is read into memory, not streamed.", { reason: "utf-16" });
    }
    const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    const format = delimitedFormat(head.subarray(start).toString("latin1"), fileName);

    const validator = new TextDecoder("utf-8", { fatal: true });
    let utf8 = true;
    let size = start;
    async function* chunks(): AsyncGenerator<string> {
      for (;;) {
        const chunk = await readRange(fd, size, size + CHUNK_BYTES);
        if (chunk.length === 0) break;
        if (utf8) {
          try {
            validator.decode(chunk, { stream: true });
          } catch {
            utf8 = false;
          }
        }
        size += chunk.length;
        yield chunk.toString("latin1");
      }
      if (utf8) {
        try {
          validator.decode();
        } catch {
          utf8 = false;
        }
      }
    }

    let header: string[] | undefined;
    let count = 0;
    let width = 0;
    let cursor = start;
    const offsets: number[] = [];
    const problems: DelimitedProblem[] = [];
    await new Promise<void>((resolve, reject) => {
      const source = Readable.from(chunks());
      source.once("error", reject);
      Papa.parse<string[]>(source as unknown as File, {
        ...papaOptions(format),
        step(result) {
          for (const e of result.errors) {
            const problem = quoteProblem(e, format, header === undefined ? -1 : count);
            if (problem) problems.push(problem);
          }
          const row = result.data;
          // A blank row is no row: the next one starts after it.
          if (isBlankRow(row)) void 0;
          else if (header === undefined) header = row;
          else {
            if (count % STRIDE === 0) offsets.push(cursor);
            if (row.length > width) width = row.length;
            count++;
          }
          cursor = start + result.meta.cursor;
        },
        complete: () => resolve(),
        error: (err: Error) => reject(err),
      });
    });
    const encoding = utf8 ? "utf-8" : "windows-1252";
    const decode = cellDecoder(encoding);
    const head0 = cleanRow(header ?? [], format).map(decode);
    const columns = shapeTable(head0, Math.max(width, head0.length));
    return new DelimitedFile(columns, count, format, encoding, problems, offsets, size);
  }

  /** Rows `start` … `start + count - 1` in file order (fewer at the end). */
  async rows(fd: number, start: number, count: number): Promise<string[][]> {
    const out: string[][] = [];
    const last = Math.min(this.rowCount, start + count) - 1;
    for (let i = start; i <= last;) {
      const g = Math.floor(i / STRIDE);
      const group = await this.group(fd, g);
      const from = i - g * STRIDE;
      const to = Math.min(group.length, last - g * STRIDE + 1);
      out.push(...group.slice(from, to));
      i = g * STRIDE + to;
      if (to <= from) break;
    }
    return out;
  }

  /** The rows at these positions (any order, e.g. a sorted page), in the order asked. */
  async rowsAt(fd: number, indexes: readonly number[]): Promise<string[][]> {
    const out: string[][] = [];
    for (const i of indexes) {
      const g = Math.floor(i / STRIDE);
      out.push((await this.group(fd, g))[i - g * STRIDE] ?? this.columns.map(() => ""));
    }
    return out;
  }

  /** Every cell of one column, in file order (for sorting). Reads the file through without caching it. */
  async column(fd: number, col: number): Promise<string[]> {
    const out: string[] = [];
    // Many groups per read: one file read and one parse per few megabytes rather than per 64 rows.
    for (let g = 0; g < this.offsets.length; g += 1024)
      for (const row of await this.parseGroups(fd, g, 1024)) out.push(row[col] ?? "");
    return out;
  }

  private async group(fd: number, g: number): Promise<string[][]> {
    const hit = this.groups.get(g);
    if (hit) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.groups.delete(g);
      this.groups.set(g, hit);
      return hit;
    }
    const rows = await this.parseGroups(fd, g, 1);
    this.groups.set(g, rows);
    if (this.groups.size > CACHED_GROUPS) this.groups.delete(this.groups.keys().next().value!);
    return rows;
  }

  /** The rows of groups `g` … `g + n - 1`. */
  private async parseGroups(fd: number, g: number, n: number): Promise<string[][]> {
    const from = this.offsets[g];
    if (from === undefined) return [];
    const to = this.offsets[g + n] ?? this.end;
    const text = (await readRange(fd, from, to)).toString("latin1");
    const decode = cellDecoder(this.encoding);
    const width = this.columns.length;
    return Papa.parse<string[]>(text, papaOptions(this.format))
      .data.filter((r) => !isBlankRow(r))
      .slice(0, n * STRIDE)
      .map((r) => {
        const row = cleanRow(r, this.format).map(decode);
        while (row.length < width) row.push("");
        return row;
      });
  }
}
