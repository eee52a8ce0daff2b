/**
 * A tool's result text as the Markdown its card renders (with the answers' renderer): file contents as
 * highlighted code, JSON pretty-printed as code, everything else as Markdown whose line breaks are kept
 * (tool texts are line-oriented: listings, "Files written:" lists, logs).
 */

/** Characters of a result shown in its card; the model read all of it. */
export const TOOL_RESULT_CHARS = 4000;

/** highlight.js names (all in rehype-highlight's default set) by extension; others are plain code. */
const LANGUAGES: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  py: "python",
  sh: "bash",
  css: "css",
  html: "xml",
  xml: "xml",
  svg: "xml",
  yml: "yaml",
  yaml: "yaml",
  sql: "sql",
  ini: "ini",
  toml: "ini",
};

const MARKDOWN_EXT = new Set(["md", "markdown", "mdx"]);

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/** A label and a JSON value on one line (`Result: {…}`, as exec_run_js reports). */
const LABELLED_JSON = /^([A-Za-z][\w ]{0,40}):\s+([[{].*)$/;

/** Keeps each line a line: Markdown joins single line breaks into one paragraph otherwise. */
function lineOriented(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      out.push(line);
      if (open && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      continue;
    }
    if (open) {
      fence = open;
      out.push(line);
      continue;
    }
    const labelled = LABELLED_JSON.exec(line);
    const value = labelled && labelled[2]!.length > 60 ? parseJson(labelled[2]!) : undefined;
    if (labelled && value !== undefined) {
      out.push(`${labelled[1]}:`, "", fenced(JSON.stringify(value, null, 2), "json"), "");
      continue;
    }
    // Two trailing spaces: a hard line break (ignored at the end of a paragraph or a table row).
    out.push(line.trim() === "" ? line : `${line.replace(/\s+$/, "")}  `);
  }
  return out.join("\n");
}

/** The start of a long text, cut at a line end, and what was left out. */
function bounded(text: string): { text: string; omitted: number } {
  if (text.length <= TOOL_RESULT_CHARS) return { text, omitted: 0 };
  const cut = text.lastIndexOf("\n", TOOL_RESULT_CHARS);
  const end = cut > TOOL_RESULT_CHARS / 2 ? cut : TOOL_RESULT_CHARS;
  return { text: text.slice(0, end), omitted: text.length - end };
}

function extension(path: unknown): string {
  if (typeof path !== "string") return "";
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/**
 * The Markdown for a tool card's result. `name` and `args` say what the text is: a file read by
 * fs_read_file is shown as that file (Markdown rendered, code highlighted by its extension).
 */
export function toolResultMarkdown(name: string, args: Record<string, unknown>, text: string): string {
  // A live run's result comes shortened by the agent, with this note at its end (packages/agent graph.ts).
  const cut = /\n… \((\d+) more characters\)$/.exec(text);
  const { text: shown, omitted: here } = bounded(cut ? text.slice(0, cut.index) : text);
  const omitted = here + (cut ? Number(cut[1]) : 0);
  const more = omitted > 0 ? `\n\n*… ${omitted.toLocaleString("en")} more characters not shown here.*` : "";
  const json = omitted === 0 ? parseJson(shown) : undefined; // a cut JSON text does not parse
  if (json !== undefined) return fenced(JSON.stringify(json, null, 2), "json");
  if (name.endsWith("fs_read_file")) {
    const ext = extension(args.path);
    if (MARKDOWN_EXT.has(ext)) return shown + more;
    if (ext !== "") return fenced(shown, LANGUAGES[ext] ?? "") + more;
  }
  return lineOriented(shown) + more;
}
