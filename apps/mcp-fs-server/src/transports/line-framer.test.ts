import { describe, expect, it } from "vitest";
import { LineFramer, type OversizedLine } from "./line-framer.js";

function frame(chunks: string[], max: number, keep = 4): { lines: string[]; oversized: OversizedLine[] } {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const framer = new LineFramer(
    max,
    { lines: (batch) => lines.push(...batch.toString().split(/(?<=\n)/)), oversized: (l) => oversized.push(l) },
    keep,
  );
  for (const c of chunks) framer.push(Buffer.from(c));
  return { lines, oversized };
}

describe("LineFramer", () => {
  it("passes lines within the limit unchanged, however they are chunked", () => {
    const text = "a\nbb\n\nccc\n";
    for (const chunks of [[text], text.split(""), ["a\nb", "b\n\nc", "cc\n"]]) {
      expect(frame(chunks, 3).lines).toEqual(["a\n", "bb\n", "\n", "ccc\n"]);
    }
  });

  it("holds back a line until its newline arrives", () => {
    expect(frame(["abc", "de"], 10).lines).toEqual([]);
  });

  it("drops a line over the limit, keeps its ends, and goes on with the next line", () => {
    for (const chunks of [["ok\n0123456789\nnext\n"], ["ok\n0123", "4567", "89\nne", "xt\n"]]) {
      const { lines, oversized } = frame(chunks, 5);
      expect(lines).toEqual(["ok\n", "next\n"]);
      expect(oversized).toHaveLength(1);
      expect(oversized[0]?.bytes).toBe(10);
      expect(oversized[0]?.head.toString()).toBe("0123");
      expect(oversized[0]?.tail.toString()).toBe("6789");
    }
  });

  it("counts a line at exactly the limit as within it (newline excluded)", () => {
    expect(frame(["12345\n123456\n"], 5)).toMatchObject({ lines: ["12345\n"], oversized: [{ bytes: 6 }] });
  });

  it("keeps only a bounded amount of a line that never ends", () => {
    const framer = new LineFramer(8, { lines: () => undefined, oversized: () => undefined }, 4);
    for (let i = 0; i < 1000; i++) framer.push(Buffer.alloc(1024, 0x78));
    const state = framer as unknown as { pending: Buffer[]; dropping: { head: Buffer[]; tail: Buffer } };
    expect(state.pending).toEqual([]);
    expect(state.dropping.head.reduce((n, b) => n + b.length, 0)).toBe(4);
    expect(state.dropping.tail.length).toBe(4);
  });
});
