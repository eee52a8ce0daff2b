import { describe, expect, it } from "vitest";
import { TOOL_RESULT_CHARS, toolResultMarkdown } from "../lib/tool-result.js";

describe("toolResultMarkdown", () => {
  it("keeps each line of a listing a line", () => {
    const md = toolResultMarkdown("fs_list_directory", { path: "data" }, "data: 2 entries\ndata/a.csv (1 KB)\ndata/b/");
    expect(md.split("\n")).toEqual(["data: 2 entries  ", "data/a.csv (1 KB)  ", "data/b/  "]);
  });

  it("shows a file read as that file: code fenced with its language, Markdown as Markdown", () => {
    expect(toolResultMarkdown("fs_read_file", { path: "src/x.py" }, "print('```')\n")).toBe(
      "````python\nprint('```')\n````",
    );
    const table = "| a | b |\n| - | - |\n| 1 | 2 |";
    expect(toolResultMarkdown("fs_read_file", { path: "notes/t.md" }, table)).toBe(table);
  });

  it("pretty-prints JSON, whole or after a label, as JSON code", () => {
    expect(toolResultMarkdown("x", {}, '{"a":1}')).toBe('```json\n{\n  "a": 1\n}\n```');
    const md = toolResultMarkdown(
      "exec_run_js",
      {},
      `Result: {"rows":${JSON.stringify(Array(20).fill("row"))}}\n\n(5 ms)`,
    );
    expect(md).toContain('Result:\n\n```json\n{\n  "rows": [');
    expect(md).toContain("(5 ms)");
  });

  it("bounds a long result at a line end and says how much is left out, the agent's cut included", () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    const md = toolResultMarkdown("fs_search_files", {}, long);
    expect(md.length).toBeLessThan(TOOL_RESULT_CHARS + 600);
    const shown = md.split("\n").filter((l) => l.startsWith("line ")).length;
    const left = long.length - long.split("\n").slice(0, shown).join("\n").length;
    expect(md).toContain(`… ${left.toLocaleString("en")} more characters not shown here.`);
    expect(toolResultMarkdown("x", {}, "a\nb\n… (1234 more characters)")).toContain("… 1,234 more characters");
  });
});
