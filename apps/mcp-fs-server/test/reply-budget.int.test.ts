import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPLY_BUDGET_BYTES } from "../src/tools/reply-budget.js";
import { connectInMemory, textOf, type Connected } from "./helpers/connect.js";

// Issue 14, item 1: a 1 MiB page became one SSE event over 1 MiB, which the Python SDK refuses.
// No reply may exceed the budget, whatever the file holds, and paging still yields the exact file.
const MiB = 1024 * 1024;
let c: Connected;

const FILES: Record<string, Buffer> = {
  "plain.txt": Buffer.alloc(MiB + 5000, "a"),
  "quotes.txt": Buffer.alloc(MiB, '"'), // two bytes each when escaped
  "controls.txt": Buffer.from("\u0001x\n".repeat(MiB / 3)), // \u0001 escapes to six bytes
  "multibyte.txt": Buffer.from("é€😀".repeat(MiB / 9)),
  "blob.bin": Buffer.from(Array.from({ length: MiB }, (_, i) => (i * 7919) % 256)),
};

beforeAll(async () => {
  c = await connectInMemory({ copySample: false, exec: false });
  for (const [name, bytes] of Object.entries(FILES)) await writeFile(path.join(c.ws.project, name), bytes);
});

afterAll(() => c?.close());

/** Reads a file page by page with the largest maxBytes; checks every reply's size. */
async function readAll(name: string): Promise<{ bytes: Buffer; pages: number }> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (let pages = 1; ; pages++) {
    const res = await c.call("fs_read_file", { path: name, offset, maxBytes: MiB });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(REPLY_BUDGET_BYTES);
    const s = res.structuredContent as { encoding: string; truncated: boolean; nextOffset?: number; bytesRead: number };
    if (s.encoding === "base64") {
      const blob = res.content.find((b) => b.type === "resource");
      parts.push(Buffer.from((blob as { resource: { blob: string } }).resource.blob, "base64"));
    } else parts.push(Buffer.from(textOf(res), "utf8"));
    if (!s.truncated) return { bytes: Buffer.concat(parts), pages };
    offset = s.nextOffset!;
  }
}

describe("one reply fits every client's message limit (issue 14)", () => {
  it.each(Object.keys(FILES))("%s: every page under the budget, and the pages make the exact file", async (name) => {
    const { bytes, pages } = await readAll(name);
    expect(bytes.equals(FILES[name]!)).toBe(true);
    expect(pages).toBeGreaterThan(1);
  });
});
