import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DelimitedFile } from "./delimited-file.js";
import { readDelimited } from "./delimited.js";

const utf8 = (s: string) => new TextEncoder().encode(s);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "textide-delimited-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fds: number[] = [];
afterAll(() => fds.forEach((fd) => closeSync(fd)));

/** Both ways of reading: in memory, and streamed from a file then read by position. */
async function both(bytes: Uint8Array, name: string) {
  const memory = readDelimited(bytes, name);
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  const fd = openSync(file, "r");
  fds.push(fd);
  const streamed = await DelimitedFile.open(fd, name);
  const rows = await streamed.rows(fd, 0, streamed.rowCount + 5);
  return { memory, streamed, rows, fd };
}

describe("readDelimited", () => {
  it("reads quotes, doubled quotes, line breaks inside quotes and quotes inside unquoted text", () => {
    const t = readDelimited(
      utf8('name,note\r\n"Io","a ""big"" moon"\r\nEuropa,"ice\r\nshell"\r\nGanymede,5" wide\r\n'),
      "q.csv",
    );
    expect(t.columns).toEqual(["name", "note"]);
    expect(t.rows).toEqual([
      ["Io", 'a "big" moon'],
      ["Europa", "ice\r\nshell"],
      ["Ganymede", '5" wide'],
    ]);
    expect(t.problems).toEqual([]);
  });

  it("drops a UTF-8 BOM, skips empty and blank lines, pads ragged rows and names extra columns", () => {
    const t = readDelimited(utf8("\uFEFFa,b\n\n1,2\n , \n3\n4,5,6\n\n"), "r.csv");
    expect(t.columns).toEqual(["a", "b", "column_3"]);
    expect(t.rows).toEqual([
      ["1", "2", ""],
      ["3", "", ""],
      ["4", "5", "6"],
    ]);
  });

  it("guesses a semicolon delimiter for .csv, always tabs for .tsv", () => {
    expect(readDelimited(utf8("a;b\n1,5;2\n"), "s.csv").rows).toEqual([["1,5", "2"]]);
    expect(readDelimited(utf8("a;b\tc\n1;2\t3\n"), "s.tsv").columns).toEqual(["a;b", "c"]);
  });

  it("reads mixed line endings, UTF-16 with a BOM and Windows-1252 text", () => {
    expect(readDelimited(utf8("a,b\n1,2\r\n3,4\n"), "m.csv").rows).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("city,temp\nZürich,3\n", "utf16le")]);
    expect(readDelimited(le, "u.csv").rows).toEqual([["Zürich", "3"]]);
    const cp1252 = Buffer.from([...Buffer.from("x\ncaf"), 0xe9, 0x0a]);
    expect(readDelimited(cp1252, "w.csv").rows).toEqual([["café"]]);
  });

  it("reports an unclosed quote instead of failing", () => {
    const t = readDelimited(utf8('a,b\n1,"open\n2,3\n'), "bad.csv");
    expect(t.problems).toEqual([
      { row: 0, message: "a quoted field is never closed, so the rest of the file was read into that one cell" },
    ]);
  });
});

describe("DelimitedFile", () => {
  it("reads the same cells as readDelimited across chunk and row-group boundaries", async () => {
    // ~3 MB: several 1 MiB read chunks and many 64-row groups; multi-byte text and quoted line breaks
    // land on the boundaries somewhere.
    const lines = ["\uFEFFid;name;note"];
    for (let i = 0; i < 40_000; i++) {
      lines.push(i % 7 === 0 ? "" : `${i};"Zoë ""${i}""";"line\nbreak ${"é".repeat(i % 50)}"`);
      if (i % 1000 === 0) lines.push(`${i};ragged`);
    }
    const bytes = utf8(lines.join("\r\n") + "\r\n");
    const { memory, streamed, rows, fd } = await both(bytes, "big.csv");
    expect(streamed.columns).toEqual(["id", "name", "note"]);
    expect(streamed.rowCount).toBe(memory.rows.length);
    expect(rows).toEqual(memory.rows);
    const some = [memory.rows.length - 1, 0, 12_345, 64, 63];
    expect(await streamed.rowsAt(fd, some)).toEqual(some.map((i) => memory.rows[i]));
    expect(await streamed.rows(fd, 30_000, 150)).toEqual(memory.rows.slice(30_000, 30_150));
    expect(await streamed.column(fd, 1)).toEqual(memory.rows.map((r) => r[1]));
  });

  it("decodes a file that is not UTF-8 as Windows-1252, like the in-memory reader", async () => {
    const bytes = Buffer.from([...Buffer.from("name\nna"), 0xef, 0x76, 0x65, 0x0a, ...Buffer.from("plain\n")]);
    const { memory, rows } = await both(bytes, "cp.csv");
    expect(rows).toEqual([["naïve"], ["plain"]]);
    expect(rows).toEqual(memory.rows);
  });
});
