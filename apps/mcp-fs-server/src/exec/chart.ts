import { Resvg, type ResvgRenderOptions } from "@resvg/resvg-js";
import { parse as parseVega, View, type Loader, type LoggerInterface, type Spec as VegaSpec } from "vega";
import { expressionInterpreter } from "vega-interpreter";
import { compile as compileVegaLite, type TopLevelSpec } from "vega-lite";
import { ExecError, isExecError } from "./errors.js";
import { DEFAULT_FONT_FAMILY, fontFiles } from "./fonts.js";
import { BoundedCache, contentKey } from "./memo.js";

/*
 * Host side of the sandbox's `chart(spec, name, {format})`: Vega-Lite (or Vega) JSON in, SVG
 * and/or PNG bytes out. Pure: it reads nothing but the spec and writes nothing; the caller
 * writes the files. Vega can fetch data and images by URL (and read local files under Node),
 * so a spec naming any `url`/`href` is refused up front, and the View gets a loader that
 * refuses everything as a second wall. Expressions are evaluated by vega-interpreter over the
 * parsed AST, so rendering never compiles code with `new Function`.
 */

/** Largest spec accepted, measured as JSON text. */
export const MAX_SPEC_BYTES = 2 * 1024 * 1024;
/** Deepest nesting accepted in a spec (real specs stay under ~15). */
export const MAX_SPEC_DEPTH = 50;
/** Largest width or height of a chart, in CSS pixels (the SVG's own size). */
export const MAX_CHART_SIDE = 8000;
/** The PNG is drawn at this zoom for crisp text on high-density screens. */
export const PNG_ZOOM = 2;
/** Largest PNG, in pixels, after the zoom. */
export const MAX_PNG_PIXELS = 16_000_000;

export type ChartFormat = "png" | "svg" | "both";

export interface RenderedChart {
  svg?: string;
  png?: Uint8Array;
  /** Size of the chart in CSS pixels (the SVG's size); the PNG is PNG_ZOOM times larger. */
  width: number;
  height: number;
  /** Vega / Vega-Lite warnings (e.g. a field that is not in the data), worth showing the model. */
  warnings?: string[];
}

const FORBIDDEN_KEYS = new Set(["url", "href"]);
/** Keys whose subtrees are rows of data: their `width`/`height` fields are data, not layout. */
const DATA_KEYS = new Set(["values", "datasets"]);
const SIZE_KEYS = new Set(["width", "height", "step"]);

const URL_MESSAGE =
  "Charts must use inline data: put rows in data.values (e.g. from readTable) instead of data.url. " +
  "Loading files or URLs from a chart spec is not allowed, and neither are image marks or links (url/href).";

/**
 * Throws unless `spec` is plain JSON that cannot make Vega load anything: an object (not an
 * array), no functions or class instances, no `url`/`href` key at any depth, at most
 * MAX_SPEC_DEPTH deep and MAX_SPEC_BYTES as JSON.
 */
export function assertSafeSpec(spec: unknown): void {
  sanitizeSpec(spec);
}

/** The checks of assertSafeSpec; returns a fresh plain-JSON copy, the only thing later code sees. */
function sanitizeSpec(spec: unknown): Record<string, unknown> {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    const got = spec === null ? "null" : Array.isArray(spec) ? "an array" : typeof spec;
    throw new ExecError(
      "runtime",
      `chart(spec, name): spec must be a Vega-Lite specification object like ` +
        `{ data: { values: rows }, mark: "bar", encoding: { x: {...}, y: {...} } }, but got ${got}.`,
    );
  }
  const budget = { bytes: 0 };
  return copyJson(spec, "spec", 0, budget, false) as Record<string, unknown>;
}

function copyJson(value: unknown, where: string, depth: number, budget: { bytes: number }, inData: boolean): unknown {
  if (depth > MAX_SPEC_DEPTH) {
    throw new ExecError(
      "limit",
      `The chart spec is nested more than ${MAX_SPEC_DEPTH} levels deep (at ${where}); ` +
        `a Vega-Lite spec never needs that. Check for a spec that contains itself or a deeply nested data value.`,
    );
  }
  charge(budget, 8);
  switch (typeof value) {
    case "string":
      charge(budget, value.length);
      return value;
    case "number":
    case "boolean":
    case "undefined":
      return value;
    case "object":
      break;
    default:
      throw new ExecError(
        "policy",
        `The chart spec must be plain JSON, but ${where} is a ${typeof value}. ` +
          `Use strings, numbers, booleans, null, arrays and objects only (Vega expressions go in strings).`,
      );
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(copyJson(value[i], `${where}[${i}]`, depth + 1, budget, inData));
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const kind = value instanceof Date ? "a Date (use an ISO string)" : "not a plain object";
    throw new ExecError("policy", `The chart spec must be plain JSON, but ${where} is ${kind}.`);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const path = /^[A-Za-z_$][\w$]*$/.test(key) ? `${where}.${key}` : `${where}[${JSON.stringify(key)}]`;
    if (FORBIDDEN_KEYS.has(key)) throw new ExecError("policy", `${URL_MESSAGE} (found "${key}" at ${path})`);
    if (key === "__proto__")
      throw new ExecError("policy", `The chart spec may not contain a "__proto__" key (at ${path}).`);
    charge(budget, key.length + 4);
    const child = (value as Record<string, unknown>)[key];
    const childInData = inData || DATA_KEYS.has(key);
    if (!childInData && SIZE_KEYS.has(key) && typeof child === "number" && child > MAX_CHART_SIDE) {
      throw new ExecError(
        "limit",
        `${path} is ${child}; charts can be at most ${MAX_CHART_SIDE} pixels wide or high. Use a smaller ${key}.`,
      );
    }
    out[key] = copyJson(child, path, depth + 1, budget, childInData);
  }
  return out;
}

function charge(budget: { bytes: number }, n: number): void {
  budget.bytes += n;
  if (budget.bytes > MAX_SPEC_BYTES) {
    throw new ExecError(
      "limit",
      `The chart spec is larger than ${MAX_SPEC_BYTES / 1048576} MB. Aggregate the data first ` +
        `(group and sum/average in JavaScript) and chart the summary rows instead of every raw row.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

function refuse(what: string): never {
  throw new ExecError("policy", `${URL_MESSAGE} (the chart tried to ${what})`);
}

/** A Vega loader that loads nothing: data, images and links all fail with a policy error. */
export const DENY_ALL_LOADER: Loader = {
  load: (uri: string) => Promise.reject(new ExecError("policy", `${URL_MESSAGE} (the chart tried to load ${uri})`)),
  sanitize: (uri: string) => Promise.reject(new ExecError("policy", `${URL_MESSAGE} (the chart tried to use ${uri})`)),
  http: (uri: string) => refuse(`fetch ${uri}`),
  file: (filename: string) => refuse(`read the file ${filename}`),
};

/** Chart defaults: the bundled font (the only one the PNG renderer has) and a white background. */
const VEGA_LITE_CONFIG = { font: DEFAULT_FONT_FAMILY, background: "white" } as const;
const VEGA_CONFIG = {
  background: "white",
  text: { font: DEFAULT_FONT_FAMILY },
  title: { font: DEFAULT_FONT_FAMILY, subtitleFont: DEFAULT_FONT_FAMILY },
  axis: { labelFont: DEFAULT_FONT_FAMILY, titleFont: DEFAULT_FONT_FAMILY },
  legend: { labelFont: DEFAULT_FONT_FAMILY, titleFont: DEFAULT_FONT_FAMILY },
} as const;

/** Faces every chart needs (labels and bold titles); the oblique ones only load when the SVG uses them. */
const UPRIGHT_FACES = 2;
let uprightOptions: ResvgRenderOptions | undefined;
let allFacesOptions: ResvgRenderOptions | undefined;

function makeOptions(files: string[]): ResvgRenderOptions {
  return {
    font: {
      fontFiles: files,
      loadSystemFonts: false,
      defaultFontFamily: DEFAULT_FONT_FAMILY,
      sansSerifFamily: DEFAULT_FONT_FAMILY,
      serifFamily: DEFAULT_FONT_FAMILY,
      monospaceFamily: DEFAULT_FONT_FAMILY,
      cursiveFamily: DEFAULT_FONT_FAMILY,
      fantasyFamily: DEFAULT_FONT_FAMILY,
    },
    fitTo: { mode: "zoom", value: PNG_ZOOM },
    logLevel: "off",
  };
}

/**
 * resvg options, built once. resvg re-reads its font files on every render (~2 ms a face), so
 * the italic faces are only passed when the SVG has italic or oblique text.
 */
function pngOptions(svg: string): ResvgRenderOptions {
  if (/font-style="(?:italic|oblique)/.test(svg)) {
    allFacesOptions ??= makeOptions(fontFiles());
    return allFacesOptions;
  }
  uprightOptions ??= makeOptions(fontFiles().slice(0, UPRIGHT_FACES));
  return uprightOptions;
}

/**
 * Collects Vega's log calls instead of printing them (stdout may be a protocol channel). Vega
 * calls these methods with the View as `this`, so they are closures, not prototype methods.
 */
interface CollectingLogger extends LoggerInterface {
  readonly warnings: string[];
  /** Errors Vega logged (it logs dataflow errors instead of rejecting); strings for plain messages. */
  readonly errors: (Error | string)[];
}

function collectingLogger(): CollectingLogger {
  const warnings: string[] = [];
  const errors: (Error | string)[] = [];
  let level = 2;
  const logger: CollectingLogger = {
    warnings,
    errors,
    level(_?: number): number | CollectingLogger {
      if (_ === undefined) return level;
      level = _;
      return logger;
    },
    error(...args: unknown[]) {
      const err = args.find(isExecError) ?? args.find((a): a is Error => a instanceof Error);
      errors.push(err ?? args.map(String).join(" "));
      return logger;
    },
    warn(...args: unknown[]) {
      if (warnings.length < 20) warnings.push(args.map(String).join(" "));
      return logger;
    },
    info: () => logger,
    debug: () => logger,
  };
  return logger;
}

function checkDeadline(deadline: number | undefined, during: string): void {
  if (deadline !== undefined && Date.now() > deadline) {
    throw new ExecError(
      "timeout",
      `Time limit reached while ${during}. Chart fewer rows (aggregate first) or raise the run's timeout.`,
    );
  }
}

function isVegaSpec(spec: Record<string, unknown>): boolean {
  const schema = spec.$schema;
  if (typeof schema === "string") return /\/schema\/vega\/v\d/.test(schema);
  // No $schema: a Vega spec has `marks` and none of Vega-Lite's view keys.
  return Array.isArray(spec.marks) && !("mark" in spec || "layer" in spec || "encoding" in spec);
}

function errorText(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/\s+$/, "").replace(/\.$/, "");
}

const VEGA_LITE_MARKS = [
  "arc",
  "area",
  "bar",
  "boxplot",
  "circle",
  "errorband",
  "errorbar",
  "geoshape",
  "line",
  "point",
  "rect",
  "rule",
  "square",
  "text",
  "tick",
  "trail",
];

/** The first `mark` (outside data) that is not a Vega-Lite mark type, to explain a compile error. */
function unknownMark(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_SPEC_DEPTH || value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = unknownMark(v, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === "mark") {
      const type = typeof v === "string" ? v : (v as { type?: unknown } | null)?.type;
      if (typeof type === "string" && !VEGA_LITE_MARKS.includes(type)) return type;
    }
    const found = unknownMark(v, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function toVega(spec: Record<string, unknown>, logger: CollectingLogger): VegaSpec {
  if (isVegaSpec(spec)) return spec;
  try {
    return compileVegaLite(spec as unknown as TopLevelSpec, { config: VEGA_LITE_CONFIG, logger }).spec;
  } catch (err) {
    if (isExecError(err)) throw err;
    const mark = unknownMark(spec);
    const what = mark === undefined ? errorText(err) : `unknown mark type ${JSON.stringify(mark)}`;
    throw new ExecError(
      "runtime",
      `Invalid Vega-Lite spec: ${what}. A chart spec needs data (data.values: an array of row objects), ` +
        `a mark (one of ${VEGA_LITE_MARKS.join(", ")}) and an encoding mapping fields to channels, e.g. ` +
        `{ data: { values: rows }, mark: "bar", encoding: { x: { field: "Planet", type: "nominal" }, ` +
        `y: { field: "Moons", type: "quantitative" } } }. See https://vega.github.io/vega-lite/docs/.`,
      { cause: err },
    );
  }
}

/** Width and height of the root <svg> element that Vega's SVG renderer writes. */
function svgSize(svg: string): { width: number; height: number } {
  const head = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  const width = Number(/\swidth="([\d.]+)"/.exec(head)?.[1]);
  const height = Number(/\sheight="([\d.]+)"/.exec(head)?.[1]);
  if (!Number.isFinite(width) || !Number.isFinite(height)) {
    throw new ExecError("runtime", "The chart rendered to an SVG without a size; give the spec a width and height.");
  }
  return { width, height };
}

function checkSize(width: number, height: number, png: boolean): void {
  const hint = "Make width/height smaller (or use fewer facets / a larger step size)";
  if (width > MAX_CHART_SIDE || height > MAX_CHART_SIDE) {
    throw new ExecError(
      "limit",
      `The chart is ${Math.round(width)}×${Math.round(height)} pixels; at most ${MAX_CHART_SIDE} per side is allowed. ${hint}.`,
    );
  }
  const pixels = Math.ceil(width * PNG_ZOOM) * Math.ceil(height * PNG_ZOOM);
  if (png && pixels > MAX_PNG_PIXELS) {
    throw new ExecError(
      "limit",
      `The chart is ${Math.round(width)}×${Math.round(height)} pixels, which as a ${PNG_ZOOM}× PNG is ` +
        `${(pixels / 1e6).toFixed(1)} megapixels; the limit is ${MAX_PNG_PIXELS / 1e6}. ${hint}, or use format "svg".`,
    );
  }
}

/**
 * Charts drawn lately, by their whole spec (data included) and format: drawing one again gives the
 * same bytes, so it is not drawn again (see memo.ts). Laying out and encoding a PNG is most of a chart
 * run's time. Renders larger than a few MB are not kept.
 */
const rendered = new BoundedCache<RenderedChart>(32, 16 * 1024 * 1024);
const MAX_CACHED_RENDER_BYTES = 4 * 1024 * 1024;

function renderKey(spec: Record<string, unknown>, format: ChartFormat): string {
  return contentKey(format, keyText(spec));
}

/**
 * A sanitized spec (plain JSON plus `undefined`) as text that tells apart every two specs Vega could
 * treat differently: unlike JSON.stringify it keeps `undefined` (apart from an absent key), NaN, and -0.
 */
function keyText(v: unknown): string {
  if (v === undefined) return "u";
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(keyText).join(",")}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${keyText(x)}`)
    .join(",")}}`;
}

/** Parses, runs and renders a Vega spec headlessly; anything Vega logged as an error is thrown. */
async function vegaToSvg(vegaSpec: VegaSpec, logger: CollectingLogger): Promise<string> {
  const view = new View(parseVega(vegaSpec, VEGA_CONFIG, { ast: true }), {
    renderer: "none",
    loader: DENY_ALL_LOADER,
    expr: expressionInterpreter,
    logger,
    logLevel: 2,
  });
  try {
    const svg = await view.toSVG();
    const failure = logger.errors[0];
    if (failure !== undefined) throw typeof failure === "string" ? new Error(failure) : failure;
    return svg;
  } finally {
    view.finalize();
  }
}

/**
 * Renders a Vega-Lite (or, when `$schema` says so, Vega) spec to SVG and/or a 2× PNG.
 * Errors are ExecErrors: "policy" for specs that try to load anything, "limit" for oversized
 * specs or charts, "runtime" for invalid specs, "timeout" once `opts.deadline` (epoch ms) passed.
 */
export async function renderChart(
  spec: unknown,
  format: ChartFormat,
  opts: { deadline?: number } = {},
): Promise<RenderedChart> {
  const { deadline } = opts;
  checkDeadline(deadline, "starting the chart");
  const clean = sanitizeSpec(spec);
  const key = renderKey(clean, format);
  const hit = rendered.get(key);
  if (hit !== undefined) return hit;
  const logger = collectingLogger();
  const vegaSpec = toVega(clean, logger);
  checkDeadline(deadline, "compiling the chart spec");

  let svg: string;
  try {
    svg = await vegaToSvg(vegaSpec, logger);
  } catch (err) {
    if (isExecError(err)) throw err;
    throw new ExecError("runtime", `Invalid chart spec: ${errorText(err)}. Fix the spec and try again.`, {
      cause: err,
    });
  }
  checkDeadline(deadline, "laying out the chart");

  const { width, height } = svgSize(svg);
  const wantPng = format !== "svg";
  checkSize(width, height, wantPng);
  const out: RenderedChart = { width, height };
  if (logger.warnings.length > 0) out.warnings = logger.warnings;
  if (format !== "png") out.svg = svg;
  if (wantPng) {
    const png = new Resvg(svg, pngOptions(svg)).render().asPng();
    out.png = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
    checkDeadline(deadline, "drawing the chart as PNG");
  }
  const bytes = (out.png?.byteLength ?? 0) + (out.svg?.length ?? 0);
  if (bytes <= MAX_CACHED_RENDER_BYTES) rendered.set(key, Object.freeze(out), bytes);
  return out;
}

/** Renders a tiny chart once so the first real chart does not pay for JIT warm-up and font loading. */
export async function preloadCharting(): Promise<void> {
  await renderChart(
    {
      title: "warm-up",
      data: {
        values: [
          { k: "a", v: 1 },
          { k: "b", v: 2 },
        ],
      },
      mark: "arc",
      encoding: { theta: { field: "v", type: "quantitative" }, color: { field: "k", type: "nominal" } },
      width: 40,
      height: 40,
    },
    "both",
  );
}
