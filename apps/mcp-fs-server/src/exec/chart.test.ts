import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import {
  assertSafeSpec,
  DENY_ALL_LOADER,
  MAX_CHART_SIDE,
  preloadCharting,
  renderChart,
  type RenderedChart,
} from "./chart.js";
import { ExecError } from "./errors.js";
import { DEFAULT_FONT_FAMILY, fontFiles } from "./fonts.js";
import { parseTable, type Row } from "./tables.js";

const PLANETS_XLSX = fileURLToPath(new URL("../../../../project_root/data/planets.xlsx", import.meta.url));

async function largestPlanets(n: number): Promise<Row[]> {
  const table = await parseTable(await readFile(PLANETS_XLSX), PLANETS_XLSX);
  return [...table.rows].sort((a, b) => (b["Diameter (km)"] as number) - (a["Diameter (km)"] as number)).slice(0, n);
}

function pieSpec(rows: Row[], title: unknown = "Largest planets"): Record<string, unknown> {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values: rows },
    mark: { type: "arc" },
    encoding: {
      theta: { field: "Diameter (km)", type: "quantitative" },
      color: { field: "Planet", type: "nominal", legend: { title: "Planet" } },
    },
  };
}

function decode(r: RenderedChart): PNG {
  expect(r.png).toBeInstanceOf(Uint8Array);
  return PNG.sync.read(Buffer.from(r.png!));
}

function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (y * png.width + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!, png.data[i + 3]!];
}

/** Pixels that are dark enough to be text (black text anti-aliased on white). */
function darkPixels(png: PNG, y0 = 0, y1 = png.height): number {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < png.width; x++) {
      const [r, g, b, a] = pixel(png, x, y);
      if (a > 128 && r + g + b < 200) n++;
    }
  }
  return n;
}

async function failure(p: Promise<unknown>): Promise<ExecError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExecError);
  return err as ExecError;
}

function syncFailure(fn: () => void): ExecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ExecError);
    return e as ExecError;
  }
  throw new Error("expected an ExecError");
}

const tinyBar = {
  data: { values: [{ k: "a", v: 1 }] },
  mark: "bar",
  encoding: { x: { field: "k", type: "nominal" }, y: { field: "v", type: "quantitative" } },
};

describe("fonts", () => {
  it("resolves the four DejaVu Sans faces from the package", () => {
    const files = fontFiles();
    expect(files.map((f) => path.basename(f))).toEqual([
      "DejaVuSans.ttf",
      "DejaVuSans-Bold.ttf",
      "DejaVuSans-Oblique.ttf",
      "DejaVuSans-BoldOblique.ttf",
    ]);
    for (const f of files) {
      expect(path.isAbsolute(f)).toBe(true);
      expect(existsSync(f)).toBe(true);
    }
    expect(DEFAULT_FONT_FAMILY).toBe("DejaVu Sans");
  });
});

describe("renderChart", () => {
  it("renders a pie chart of the largest planets from planets.xlsx as SVG and PNG", async () => {
    const rows = await largestPlanets(5);
    expect(rows.map((r) => r.Planet)).toEqual(["Jupiter", "Saturn", "Uranus", "Neptune", "Earth"]);
    const r = await renderChart(pieSpec(rows), "both");

    expect(r.svg).toMatch(/^<svg /);
    expect(r.svg).toContain(">Largest planets</text>");
    for (const name of ["Jupiter", "Saturn", "Uranus", "Neptune", "Earth"]) expect(r.svg).toContain(`>${name}</text>`);
    expect(r.svg).toContain(`font-family="${DEFAULT_FONT_FAMILY}"`);
    expect(r.svg).not.toContain("Mercury");

    const png = decode(r);
    expect(png.width).toBeGreaterThanOrEqual(200);
    expect(png.height).toBeGreaterThanOrEqual(200);
    // The PNG is drawn at 2×; width/height report the chart's CSS size.
    expect(Math.abs(png.width - 2 * r.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(png.height - 2 * r.height)).toBeLessThanOrEqual(1);

    const colours = new Set<number>();
    let nonWhite = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [cr, cg, cb] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
      colours.add((cr << 16) | (cg << 8) | cb);
      if (cr < 245 || cg < 245 || cb < 245) nonWhite++;
    }
    expect(colours.size).toBeGreaterThan(50);
    expect(nonWhite / (png.width * png.height)).toBeGreaterThan(0.25);
    // Opaque white background by default, not transparent.
    expect(pixel(png, 0, 0)).toEqual([255, 255, 255, 255]);
  });

  it("draws text in the PNG: the title region differs between a black and an invisible title", async () => {
    const rows = await largestPlanets(5);
    const black = decode(await renderChart(pieSpec(rows, { text: "Largest planets", color: "black" }), "png"));
    const white = decode(await renderChart(pieSpec(rows, { text: "Largest planets", color: "white" }), "png"));
    expect([white.width, white.height]).toEqual([black.width, black.height]);

    let changed = 0;
    let lowestChange = 0;
    for (let y = 0; y < black.height; y++) {
      for (let x = 0; x < black.width; x++) {
        const a = pixel(black, x, y);
        const b = pixel(white, x, y);
        if (a.some((v, i) => v !== b[i])) {
          changed++;
          lowestChange = Math.max(lowestChange, y);
        }
      }
    }
    // Bold 13px title text at 2× covers hundreds of pixels, all in the band at the top.
    expect(changed).toBeGreaterThan(300);
    expect(lowestChange).toBeLessThan(2 * 30);
    expect(darkPixels(black, 0, 2 * 30)).toBeGreaterThan(darkPixels(white, 0, 2 * 30) + 200);
  });

  it("draws a big text mark, including italic text", async () => {
    const textSpec = (text: string, fontStyle = "normal") => ({
      width: 300,
      height: 80,
      data: { values: [{ t: text }] },
      mark: { type: "text", fontSize: 48, color: "black", fontStyle },
      encoding: { text: { field: "t" } },
    });
    const hello = decode(await renderChart(textSpec("Hello"), "png"));
    const blank = decode(await renderChart(textSpec(""), "png"));
    const italic = decode(await renderChart(textSpec("Hello", "italic"), "png"));
    expect(darkPixels(blank)).toBe(0);
    expect(darkPixels(hello)).toBeGreaterThan(2000);
    expect(darkPixels(italic)).toBeGreaterThan(2000);
    expect(italic.data.equals(hello.data)).toBe(false);
  });

  it("renders svg only or png only when asked", async () => {
    const svg = await renderChart(tinyBar, "svg");
    expect(svg.svg).toContain("<svg");
    expect(svg.png).toBeUndefined();
    const png = await renderChart(tinyBar, "png");
    expect(png.svg).toBeUndefined();
    expect(decode(png).width).toBe(2 * png.width);
  });

  it("keeps a background the spec sets", async () => {
    const dark = decode(await renderChart({ ...tinyBar, background: "#102030" }, "png"));
    expect(pixel(dark, 0, 0)).toEqual([0x10, 0x20, 0x30, 255]);
    const clear = decode(await renderChart({ ...tinyBar, config: { background: "transparent" } }, "png"));
    expect(pixel(clear, 0, 0)[3]).toBe(0);
  });

  it("renders a full Vega spec when $schema says vega", async () => {
    const r = await renderChart(
      {
        $schema: "https://vega.github.io/schema/vega/v6.json",
        width: 120,
        height: 60,
        marks: [
          {
            type: "rect",
            encode: {
              enter: {
                x: { value: 0 },
                y: { value: 0 },
                width: { value: 120 },
                height: { value: 60 },
                fill: { value: "#ff0000" },
              },
            },
          },
          {
            type: "text",
            encode: {
              enter: {
                x: { value: 10 },
                y: { value: 40 },
                text: { value: "Vega" },
                fontSize: { value: 30 },
                fill: { value: "black" },
              },
            },
          },
        ],
      },
      "both",
    );
    expect(r.svg).toContain(">Vega</text>");
    const png = decode(r);
    expect(darkPixels(png)).toBeGreaterThan(200);
    // The rect sits inside Vega's default padding of 0 at (0,0)… (10,10) in PNG pixels.
    expect(pixel(png, 10, 10)).toEqual([255, 0, 0, 255]);
  });

  it("accepts width fields inside the data", async () => {
    const r = await renderChart(
      {
        data: { values: [{ name: "slab", width: 1e9, height: 5e8 }] },
        mark: "bar",
        encoding: { x: { field: "name", type: "nominal" }, y: { field: "width", type: "quantitative" } },
      },
      "svg",
    );
    expect(r.svg).toContain("slab");
  });

  it("reports Vega warnings without printing them", async () => {
    const r = await renderChart(
      { ...tinyBar, encoding: { x: { field: "nope", type: "quantitative" }, y: { field: "v", type: "quantitative" } } },
      "svg",
    );
    expect(r.warnings?.join("\n")).toContain("nope");
  });

  it("evaluates expressions without generating code from strings", async () => {
    const spec = {
      data: { values: [{ a: 1 }, { a: 2 }, { a: 3 }] },
      transform: [{ calculate: "datum.a * 10 + length('xy')", as: "b" }, { filter: "datum.b > 12" }],
      mark: "point",
      encoding: { x: { field: "b", type: "quantitative" }, tooltip: { field: "a" } },
    };
    const original = globalThis.Function;
    let calls = 0;
    globalThis.Function = new Proxy(original, {
      construct() {
        calls++;
        throw new Error("code generation is disabled");
      },
      apply() {
        calls++;
        throw new Error("code generation is disabled");
      },
    });
    let r: RenderedChart;
    try {
      r = await renderChart(spec, "svg");
    } finally {
      globalThis.Function = original;
    }
    expect(calls).toBe(0);
    // Two points survive the filter (b = 22 and 32).
    expect(r.svg!.match(/role-mark marks/g)).toHaveLength(1);
    expect(r.svg!.match(/aria-roledescription="point"/g)).toHaveLength(2);
  });

  it("is fast once warm", async () => {
    await preloadCharting();
    const spec = pieSpec(await largestPlanets(8));
    await renderChart(spec, "both");
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await renderChart(spec, "both");
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    // ~35 ms on a 2-core machine; a wide margin for loaded CI runners.
    expect(times[3]).toBeLessThan(400);
  });
});

describe("renderChart refuses unsafe or oversized specs", () => {
  it("refuses data.url with a message pointing at data.values", async () => {
    const e = await failure(renderChart({ ...tinyBar, data: { url: "/etc/passwd" } }, "png"));
    expect(e.kind).toBe("policy");
    expect(e.message).toContain("put rows in data.values (e.g. from readTable) instead of data.url");
    expect(e.message).toContain("spec.data.url");
  });

  it("refuses href in a mark encoding and url in an image mark", async () => {
    const href = await failure(
      renderChart({ ...tinyBar, encoding: { ...tinyBar.encoding, href: { value: "file:///etc/passwd" } } }, "svg"),
    );
    expect(href.kind).toBe("policy");
    expect(href.message).toContain('"href"');
    const image = await failure(
      renderChart({ data: { values: [{ u: "x.png" }] }, mark: "image", encoding: { url: { field: "u" } } }, "svg"),
    );
    expect(image.kind).toBe("policy");
  });

  it("refuses a url nested inside a layer", async () => {
    const spec = {
      layer: [tinyBar, { data: { url: "data/planets.csv" }, mark: "line", encoding: { x: { field: "k" } } }],
    };
    const e = await failure(renderChart(spec, "png"));
    expect(e.kind).toBe("policy");
    expect(e.message).toContain("spec.layer[1].data.url");
  });

  it("refuses a Vega spec that would make the loader fetch data", async () => {
    const spec = {
      $schema: "https://vega.github.io/schema/vega/v6.json",
      data: [{ name: "secrets", url: "file:///etc/passwd", format: { type: "csv" } }],
      marks: [],
    };
    const e = await failure(renderChart(spec, "svg"));
    expect(e.kind).toBe("policy");
    expect(() => assertSafeSpec(spec)).toThrow(ExecError);
  });

  it("gives Vega a loader that refuses everything", async () => {
    const load = await failure(DENY_ALL_LOADER.load("/etc/passwd"));
    expect(load.kind).toBe("policy");
    const sanitize = await failure(DENY_ALL_LOADER.sanitize("http://example.com/x.png", { context: "image" }));
    expect(sanitize.kind).toBe("policy");
    expect(syncFailure(() => void DENY_ALL_LOADER.file("/etc/passwd")).kind).toBe("policy");
    expect(syncFailure(() => void DENY_ALL_LOADER.http("http://example.com", {})).kind).toBe("policy");
  });

  it("refuses what is not plain JSON", () => {
    expect(syncFailure(() => assertSafeSpec("bar chart please")).kind).toBe("runtime");
    expect(syncFailure(() => assertSafeSpec([tinyBar])).message).toContain("got an array");
    expect(syncFailure(() => assertSafeSpec(null)).kind).toBe("runtime");
    const fn = syncFailure(() => assertSafeSpec({ ...tinyBar, transform: [{ calculate: () => 1, as: "x" }] }));
    expect(fn.kind).toBe("policy");
    expect(fn.message).toContain("spec.transform[0].calculate is a function");
    expect(syncFailure(() => assertSafeSpec({ ...tinyBar, data: { values: [new Date()] } })).message).toContain("Date");
    const proto = syncFailure(() => assertSafeSpec(JSON.parse('{"mark": "bar", "config": {"__proto__": {"x": 1}}}')));
    expect(proto.kind).toBe("policy");
    expect(() => assertSafeSpec(tinyBar)).not.toThrow();
  });

  it("refuses specs nested too deep (including cycles) or larger than 2 MB", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 60; i++) deep = [deep];
    expect(syncFailure(() => assertSafeSpec({ ...tinyBar, usermeta: deep })).kind).toBe("limit");
    const cyclic: Record<string, unknown> = { ...tinyBar };
    cyclic.self = cyclic;
    expect(syncFailure(() => assertSafeSpec(cyclic)).message).toContain("nested more than 50 levels");
    const big = { ...tinyBar, data: { values: [{ k: "x".repeat(3 * 1024 * 1024), v: 1 }] } };
    const e = syncFailure(() => assertSafeSpec(big));
    expect(e.kind).toBe("limit");
    expect(e.message).toContain("Aggregate the data first");
  });

  it("refuses huge charts before and after layout", async () => {
    const wide = await failure(renderChart({ ...tinyBar, width: 1e6, height: 1e6 }, "png"));
    expect(wide.kind).toBe("limit");
    expect(wide.message).toContain("spec.width is 1000000");

    // Each side under the cap, but 24 megapixels as a 2× PNG: refused as PNG, fine as SVG.
    const large = { ...tinyBar, width: 3000, height: 2000 };
    const png = await failure(renderChart(large, "png"));
    expect(png.kind).toBe("limit");
    expect(png.message).toContain('or use format "svg"');
    expect((await renderChart(large, "svg")).width).toBeGreaterThan(3000);

    // Width from step × categories is only known after layout.
    const values = Array.from({ length: 500 }, (_, i) => ({ k: `c${i}`, v: i }));
    const stepped = { ...tinyBar, data: { values }, width: { step: 20 } };
    const e = await failure(renderChart(stepped, "svg"));
    expect(e.kind).toBe("limit");
    expect(e.message).toContain(`at most ${MAX_CHART_SIDE} per side`);
  });

  it("explains an invalid Vega-Lite spec", async () => {
    const e = await failure(renderChart({ data: { values: [{ a: 1 }] }, mark: "pie", encoding: {} }, "png"));
    expect(e.kind).toBe("runtime");
    expect(e.message).toMatch(/^Invalid Vega-Lite spec: unknown mark type "pie"\./);
    expect(e.message).toContain("arc");
    const empty = await failure(renderChart({ data: { values: [] } }, "svg"));
    expect(empty.message).toMatch(/^Invalid Vega-Lite spec: Invalid specification/);
    const badExpr = await failure(
      renderChart({ ...tinyBar, transform: [{ calculate: "nosuchfn(datum.v)", as: "w" }] }, "svg"),
    );
    expect(badExpr.kind).toBe("runtime");
    expect(badExpr.message).toContain("Unrecognized function: nosuchfn");
  });

  it("stops when the deadline has passed", async () => {
    const e = await failure(renderChart(tinyBar, "both", { deadline: Date.now() - 1 }));
    expect(e.kind).toBe("timeout");
    expect(e.message).toContain("Time limit reached");
  });
});
