import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, startEnv, type Env } from "./harness.js";

/*
 * The offline planner's scatter plot of the planets labels each point; Earth/Venus and
 * Uranus/Neptune sit close together, and their labels used to be drawn over each other. This
 * renders the planner's own chart code to SVG through the real MCP server and measures every label
 * with DejaVu Sans's real advance widths (the font the renderer draws with).
 */

let env: Env;
beforeAll(async () => {
  env = await startEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

/** Advance widths from the TTF's cmap (format 4) and hmtx tables, in em. */
function fontAdvances(file: string): (ch: string) => number {
  const b = readFileSync(file);
  const tables = new Map<string, number>();
  for (let i = 0, n = b.readUInt16BE(4); i < n; i++) {
    const at = 12 + i * 16;
    tables.set(b.toString("latin1", at, at + 4), b.readUInt32BE(at + 8));
  }
  const head = tables.get("head")!;
  const hhea = tables.get("hhea")!;
  const hmtx = tables.get("hmtx")!;
  const cmap = tables.get("cmap")!;
  const unitsPerEm = b.readUInt16BE(head + 18);
  const metrics = b.readUInt16BE(hhea + 34);
  let sub = -1;
  for (let i = 0, n = b.readUInt16BE(cmap + 2); i < n; i++) {
    const at = cmap + 4 + i * 8;
    if (b.readUInt16BE(at) === 3 && b.readUInt16BE(at + 2) === 1) sub = cmap + b.readUInt32BE(at + 4);
  }
  expect(b.readUInt16BE(sub)).toBe(4);
  const segs = b.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + segs * 2 + 2;
  const deltas = starts + segs * 2;
  const offsets = deltas + segs * 2;
  const glyph = (code: number): number => {
    for (let s = 0; s < segs; s++) {
      if (code > b.readUInt16BE(ends + s * 2)) continue;
      const start = b.readUInt16BE(starts + s * 2);
      if (code < start) return 0;
      const delta = b.readInt16BE(deltas + s * 2);
      const ro = b.readUInt16BE(offsets + s * 2);
      if (ro === 0) return (code + delta) & 0xffff;
      const g = b.readUInt16BE(offsets + s * 2 + ro + (code - start) * 2);
      return g === 0 ? 0 : (g + delta) & 0xffff;
    }
    return 0;
  };
  return (ch) => b.readUInt16BE(hmtx + Math.min(glyph(ch.codePointAt(0)!), metrics - 1) * 4) / unitsPerEm;
}

interface Box {
  label: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const overlap = (a: Omit<Box, "label">, b: Omit<Box, "label">) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The `translate(x,y)` elements inside the SVG group of one mark (all in the same coordinate frame). */
function markItems(svg: string, groupClass: string): { x: number; y: number; attrs: string; text: string }[] {
  const start = svg.indexOf(`<g class="${groupClass}`);
  expect(start, `${groupClass} in the SVG`).toBeGreaterThan(0);
  const group = svg.slice(start, svg.indexOf("</g>", start));
  return [...group.matchAll(/<(?:text|path)([^>]*)transform="translate\(([-\d.e]+),([-\d.e]+)\)"([^>]*)>([^<]*)/g)].map(
    (m) => ({ x: Number(m[2]), y: Number(m[3]), attrs: m[1]! + m[4]!, text: m[5]! }),
  );
}

describe("the planner's scatter plot of the planets", () => {
  it("draws every label clear of every other label and of every point", async () => {
    const res = await run(env, "scatter plot of diameter vs mass");
    const chartCode = res.codes[res.codes.length - 1]!;
    expect(chartCode).toContain('label: r["Planet"]');
    // The same code, asked for an SVG beside the PNG.
    const code = chartCode.replace('{ format: "png" }', '{ format: "both" }');
    expect(code).not.toBe(chartCode);
    const r = await env.client.callTool({ name: "exec_run_js", arguments: { code } });
    expect(r.isError).not.toBe(true);
    const out = (r.structuredContent as { result: { svg: string } }).result;
    const svg = await readFile(path.join(env.ws.assets, path.basename(out.svg)), "utf8");

    const require = createRequire(import.meta.url);
    const advance = fontAdvances(
      path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf", "DejaVuSans.ttf"),
    );
    const labels: Box[] = markItems(svg, "mark-text role-mark").map(({ x, y, attrs, text }) => {
      const size = Number(/font-size="([\d.]+)px"/.exec(attrs)![1]);
      const anchor = /text-anchor="(\w+)"/.exec(attrs)?.[1] ?? "start";
      const width = [...text].reduce((w, c) => w + advance(c), 0) * size;
      const left = anchor === "middle" ? x - width / 2 : anchor === "end" ? x - width : x;
      // y is the baseline: DejaVu Sans's capitals and ascenders reach 0.76 em above it, descenders 0.24 em below.
      return { label: text, left, right: left + width, top: y - 0.76 * size, bottom: y + 0.24 * size };
    });
    const points = markItems(svg, "mark-symbol role-mark").map(({ x, y }) => ({
      left: x - 4.5,
      right: x + 4.5,
      top: y - 4.5,
      bottom: y + 4.5,
    }));
    expect(points).toHaveLength(8);

    // The close pairs are labelled, each planet at most once.
    const names = labels.map((l) => l.label);
    for (const planet of ["Earth", "Venus", "Uranus", "Neptune", "Jupiter", "Saturn"]) expect(names).toContain(planet);
    expect(new Set(names).size).toBe(names.length);

    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        expect(overlap(labels[i]!, labels[j]!), `${labels[i]!.label} overlaps ${labels[j]!.label}`).toBe(false);
      }
      for (const p of points) expect(overlap(labels[i]!, p), `${labels[i]!.label} covers a point`).toBe(false);
    }
  }, 30_000);
});
