/*
 * The planner's shared types in one place: what a request means (Intent), what a table looks like
 * (profiles read back from the planner's own sandbox code), where a turn stands (Step, Turn) and
 * what the planner does next (Decision). Behaviour lives elsewhere; this module has no logic.
 */

// ---- requests

export type IntentKind = "chart" | "rank" | "transform" | "describe" | "preview" | "list" | "find" | "help" | "unknown";
export type ChartType = "bar" | "pie" | "line" | "scatter" | "histogram";
export type Agg = "sum" | "mean" | "count" | "min" | "max" | "median";
export type TimeUnit = "year" | "month" | "day";

/** Phrases (lists of words) found in each syntactic slot of a chart request. */
export interface Segments {
  /** What to measure or show: "chart of <head>", "average <head>". */
  head: string[][];
  /** Grouping / category: "by <x>", "per <x>", "for each <x>". */
  by: string[][];
  /** The x axis of a trend: "over <x>". */
  over: string[][];
  /** The other axis of a comparison: "<a> vs <b>". */
  vs: string[][];
  /** Series colour: "colored by <x>", "split by <x>". */
  color: string[][];
}

export interface Rank {
  order: "desc" | "asc";
  n?: number;
  /** The ranking word ("largest"), used to guess a measure when none is named. */
  word: string;
}

export interface Intent {
  kind: IntentKind;
  text: string;
  chartType?: ChartType;
  agg?: Agg;
  rank?: Rank;
  /** Rows or lines asked for by a preview ("first 20 rows"). */
  limit?: number;
  /** A file name or path written in the request ("planets.xlsx", "notes/ideas.md"). */
  explicitFile?: string;
  /** A folder path written in the request ("data/moons"). */
  explicitDir?: string;
  /** Words that describe the file ("the q1 orders", "the sales file"). */
  fileWords: string[];
  /** A sheet name phrase ("the Dwarf planets sheet"). */
  sheet?: string;
  segments: Segments;
  /** "over time", "trend", "over the years": the x axis is the table's time column. */
  overTime: boolean;
  timeUnit?: TimeUnit;
  /** Every content word (stemmed), for scoring file names and columns. */
  terms: string[];
  /** list: the folder words ("in data", "the reports folder"). */
  folderWords: string[];
  /** find: what to look for. */
  find?: { name?: string; content?: string; glob?: string };
  /** open/show: also ask the IDE to open the file. */
  openInIde: boolean;
  logScale: boolean;
  /** "stacked bar chart": series stacked rather than side by side. */
  stacked: boolean;
}

// ---- tables

export type ColumnType = "number" | "text" | "date" | "boolean" | "empty";

export interface ColumnProfile {
  name: string;
  type: ColumnType;
  /** Non-empty cells. */
  count: number;
  distinct: number;
  min?: number | string;
  max?: number | string;
  mean?: number;
  /** Every numeric value is an integer. */
  integer?: boolean;
  examples: (string | number | boolean)[];
  /** Most frequent values of a text column, with counts (describe only). */
  top?: [string, number][];
}

export interface TableProfile {
  path: string;
  sheet?: string;
  sheets?: string[];
  rows: number;
  columns: ColumnProfile[];
  sample: Record<string, unknown>[];
  error?: string;
}

// ---- the bundled tools and a turn's steps

/** The bundled server's wire names, which the planner's logic is written against. */
export const WIRE = {
  search: "fs_search_files",
  list: "fs_list_directory",
  read: "fs_read_file",
  exec: "exec_run_js",
  sql: "sql_query",
  open: "system_open_file",
} as const;
export type WireTool = (typeof WIRE)[keyof typeof WIRE];

/** What a planner-written exec_run_js or sql_query call does, recorded beside the call (see state.ts). */
export type PlannedStep = "inspect" | "describe" | "preview" | "chart" | "rank" | "schema" | "values" | "query";

export type StepKind = "search" | "list" | "read" | "open" | PlannedStep | "other";

/**
 * The structured marker the planner attaches to each of its calls (in the AI message's
 * additional_kwargs), so a later call knows which step a past call was without parsing its code.
 */
export interface StepMarker {
  step: PlannedStep;
  /** The table the step worked on: follow-up requests ("now as a pie chart") reuse it. */
  file?: string;
}

export interface StepResult {
  text: string;
  ok: boolean;
  structured?: Record<string, unknown>;
}

export interface Step {
  id: string;
  /** The bundled tool's wire name (undefined for a tool the planner does not know). */
  tool: WireTool | undefined;
  args: Record<string, unknown>;
  kind: StepKind;
  /** The planner's marker for its own calls. */
  marker?: StepMarker;
  result?: StepResult;
}

export interface Turn {
  /** The user's request text. */
  request: string;
  /** Tool calls of this turn, in order, with their results when present. */
  steps: Step[];
  /** Tool calls in the whole thread, so new ids stay unique per thread. */
  toolCallCount: number;
  /** Files the planner charted or inspected in earlier turns, newest first (for follow-ups). */
  earlierFiles: string[];
  /** The user's earlier requests in this thread, newest first ("now as a bar chart" refers to them). */
  previousRequests: string[];
}

export interface PlannedCall {
  name: WireTool;
  args: Record<string, unknown>;
  marker?: StepMarker;
}

export type Decision = { calls: PlannedCall[] } | { answer: string };

// ---- chart plans

export type XKind = "nominal" | "ordinal" | "temporal" | "year" | "quantitative";

export interface ChartPlan {
  file: string;
  sheet?: string;
  type: ChartType;
  /** bar/pie/line: the category or x column; scatter: the x column; histogram: the binned column. */
  x?: string;
  /** No grouping at all: one aggregate over every row ("what is the average salary"). */
  overall?: boolean;
  xKind: XKind;
  timeUnit?: TimeUnit;
  /** Numeric columns plotted; empty with agg "count" (rows are counted). */
  measures: string[];
  /** count: only rows where this column has a value are counted. */
  countOf?: string;
  agg: Agg | "none";
  series?: string;
  /** Series stacked (bar charts) instead of side by side. */
  stacked?: boolean;
  /** Keep only rows where this (boolean-like) column is true. */
  filter?: string;
  sort: "x" | "desc" | "asc" | "data";
  limit?: number;
  otherBucket: boolean;
  /** scatter only. */
  y?: string;
  label?: string;
  color?: string;
  /** A log axis for the values; "symlog" when some values are zero or negative (log cannot show them). */
  logScale: false | "log" | "symlog";
  title: string;
  xTitle: string;
  yTitle: string;
  /** Output file name without extension, e.g. "largest-planets-pie". */
  name: string;
  /** One phrase for the final answer: "pie chart of Diameter (km) for the 5 largest planets". */
  summary: string;
  /** The plotted values are years (printed without thousands separators). */
  yearValues?: boolean;
  /** Things the user should know (a guessed measure, several series). */
  notes: string[];
  /** Request words that named no column: a ranking (a number as the answer) is not made with them left out. */
  ignored?: string[];
  /** How well the request fits this table (used to choose among candidate tables). */
  fit: number;
}

export type PlanResult = { ok: true; plan: ChartPlan } | { ok: false; reason: string; fit: number };
