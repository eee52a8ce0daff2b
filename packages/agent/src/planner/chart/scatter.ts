import { lit } from "../code/helpers.js";
import type { ChartPlan } from "../types.js";
import {
  bare,
  human,
  isCategory,
  isNumeric,
  labelColumn,
  where,
  type ChartKind,
  type PhraseMatch,
  type PlanInput,
  type PlanResult,
} from "./resolve.js";
import { slug } from "../text.js";

/* Scatter plot: two numeric columns, one point per row, labelled by the row's name column. */

function plan({ intent, table, r, mentioned, fit, notes, base, firstMeasure }: PlanInput): PlanResult {
  const nums = (ms: PhraseMatch[]) => ms.map((m) => m.column).filter(isNumeric);
  let y = nums(r.head)[0];
  let x = [...nums(r.vs), ...nums(r.over), ...nums(r.by), ...nums(r.head)].find((c) => c !== y);
  if (!y) y = firstMeasure(x ? [x] : []);
  if (!x && y) x = firstMeasure([y]);
  if (!x || !y || x === y) return { ok: false, reason: `${where(table)} has fewer than two numeric columns.`, fit };
  if (intent.logScale) base.logScale = [x, y].some((c) => typeof c.min !== "number" || c.min <= 0) ? "symlog" : "log";
  for (const c of [x, y])
    if (!mentioned.has(c)) notes.push(`${c.name} was not named in the request; it was picked as a numeric column.`);
  const colorCol = [...r.color, ...r.by].map((m) => m.column).find((c) => isCategory(c) && c.distinct <= 12);
  const label = labelColumn(table, r.headRest);
  const title = `${human(y.name)} vs ${human(x.name)}`;
  return {
    ok: true,
    plan: {
      ...base,
      type: "scatter",
      x: x.name,
      y: y.name,
      xKind: "quantitative",
      ...(label ? { label: label.name } : {}),
      ...(colorCol ? { color: colorCol.name } : {}),
      measures: [y.name],
      agg: "none",
      sort: "data",
      otherBucket: false,
      title,
      xTitle: x.name,
      yTitle: y.name,
      name: `${slug(`${bare(y.name)} vs ${bare(x.name)}`)}-scatter`,
      summary: `scatter plot of ${y.name} against ${x.name}${label ? ` (one point per ${label.name})` : ""}${colorCol ? `, coloured by ${colorCol.name}` : ""}`,
      fit: fit + 0.5,
    },
  };
}

function spec(plan: ChartPlan): Record<string, unknown> {
  return {
    title: plan.title,
    width: 560,
    height: 400,
    encoding: {
      x: {
        field: "x",
        type: "quantitative",
        title: plan.xTitle,
        scale: plan.logScale ? { type: plan.logScale } : { zero: false },
      },
      y: {
        field: "y",
        type: "quantitative",
        title: plan.yTitle,
        scale: plan.logScale ? { type: plan.logScale } : { zero: false },
      },
      ...(plan.color ? { color: { field: "color", type: "nominal", title: plan.color } } : {}),
    },
    layer: [
      { mark: { type: "point", filled: true, size: 80, tooltip: true } },
      ...(plan.label
        ? [
            {
              // Positions from placeLabels in the chart code: beside the point, never over another label.
              transform: [{ filter: "isValid(datum.lx) && isValid(datum.ly)" }],
              mark: { type: "text", align: "center", baseline: "middle", fontSize: 11 },
              encoding: {
                x: { field: "lx", type: "quantitative", title: plan.xTitle },
                y: { field: "ly", type: "quantitative", title: plan.yTitle },
                text: { field: "label" },
              },
            },
          ]
        : []),
    ],
  };
}

function data(plan: ChartPlan): string {
  return [
    `let data = rows`,
    `  .map((r) => ({ x: num(r[${lit(plan.x)}]), y: num(r[${lit(plan.y)}])${plan.label ? `, label: r[${lit(plan.label)}]` : ""}${plan.color ? `, color: r[${lit(plan.color)}]` : ""} }))`,
    `  .filter((d) => d.x !== null && d.y !== null);`,
    ...(plan.label
      ? [
          `// Label the points only when they stay readable`,
          `if (data.length > 40) data = data.map(({ label, ...d }) => d);`,
        ]
      : []),
  ].join("\n");
}

/**
 * Scatter labels that never collide: the scales get fixed domains (data range plus 6 %, no "nice"
 * rounding), so the code knows each point's pixel position; each label then takes the first spot
 * beside its point (right, left, above, below, the diagonals) whose box stays inside the plot and
 * overlaps no placed label and no point, else it is left off (the tooltip still names the point).
 * Label positions go into the data as `lx`/`ly`, read by the text layer with the same scales.
 */
const LABEL_HELPER = `function placeLabels(data, spec, scaleType) {
  const W = spec.width, H = spec.height, FONT = 11, GAP = 7, R = 5, LINE = FONT * 1.3;
  const fwd = scaleType === "log" ? Math.log10 : scaleType === "symlog" ? (v) => Math.sign(v) * Math.log1p(Math.abs(v)) : (v) => v;
  const inv = scaleType === "log" ? (t) => 10 ** t : scaleType === "symlog" ? (t) => Math.sign(t) * Math.expm1(Math.abs(t)) : (t) => t;
  const range = (key) => {
    const ts = data.map((d) => fwd(d[key]));
    const lo = Math.min(...ts), hi = Math.max(...ts), pad = (hi - lo) * 0.06 || 1;
    return [lo - pad, hi + pad];
  };
  const [x0, x1] = range("x"), [y0, y1] = range("y");
  for (const layer of [spec, spec.layer[1]]) {
    for (const [ch, lo, hi] of [["x", x0, x1], ["y", y0, y1]]) {
      layer.encoding[ch].scale = { ...(scaleType === "linear" ? { zero: false } : { type: scaleType }), domain: [inv(lo), inv(hi)], nice: false };
    }
  }
  const px = (d) => ((fwd(d.x) - x0) / (x1 - x0)) * W;
  const py = (d) => H - ((fwd(d.y) - y0) / (y1 - y0)) * H;
  // Text width from the characters (generous, so real glyphs fit inside the box).
  const width = (text) => [...text].reduce((w, c) => w + (/[mwMW@%]/.test(c) ? 1 : /[A-Z0-9]/.test(c) ? 0.75 : /[iljtfrI.,:;'|!() ]/.test(c) ? 0.45 : 0.64), 0) * FONT;
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const taken = data.map((d) => ({ left: px(d) - R, right: px(d) + R, top: py(d) - R, bottom: py(d) + R }));
  for (const d of data) {
    if (d.label == null || String(d.label).trim() === "") continue;
    const w = width(String(d.label)), h = LINE, x = px(d), y = py(d), g = GAP * 0.7;
    const spots = [
      [x + GAP + w / 2, y], [x - GAP - w / 2, y], [x, y - GAP - h / 2], [x, y + GAP + h / 2],
      [x + g + w / 2, y - g - h / 2], [x + g + w / 2, y + g + h / 2], [x - g - w / 2, y - g - h / 2], [x - g - w / 2, y + g + h / 2],
    ];
    for (const [cx, cy] of spots) {
      const box = { left: cx - w / 2, right: cx + w / 2, top: cy - h / 2, bottom: cy + h / 2 };
      if (box.left < 0 || box.right > W || box.top < 0 || box.bottom > H) continue;
      if (taken.some((t) => overlaps(t, box))) continue;
      taken.push(box);
      d.lx = inv(x0 + (cx / W) * (x1 - x0));
      d.ly = inv(y0 + ((H - cy) / H) * (y1 - y0));
      break;
    }
  }
}`;

export const scatter: ChartKind = {
  plan,
  spec,
  data,
  prelude: (plan) => (plan.label ? LABEL_HELPER : ""),
  layout: (plan) =>
    plan.label
      ? `// Labels beside their points, none over another (left off where there is no room)\nplaceLabels(data, spec, ${lit(plan.logScale || "linear")});`
      : "",
  extremes: false,
};
