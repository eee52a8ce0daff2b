import type { TraceMessage } from "@textide/shared";
import { describe, expect, it } from "vitest";
import { splitAnswer } from "../lib/answer-links.js";
import { historyToItems } from "../lib/chat-items.js";

const paths = (text: string): string[] => splitAnswer(text).flatMap((p) => ("path" in p ? [p.path] : []));

describe("workspace paths in answers", () => {
  it("finds paths with folders, trimming sentence punctuation", () => {
    expect(paths("Saved the chart to generated_assets/charts/planets.png.")).toEqual([
      "generated_assets/charts/planets.png",
    ]);
    expect(paths("Read `data/planets.xlsx` (sheet Planets) and (./notes/ideas.md)")).toEqual([
      "data/planets.xlsx",
      "notes/ideas.md",
    ]);
  });

  it("finds bare file names only with a known extension", () => {
    expect(paths("See README.md and observatories.csv")).toEqual(["README.md", "observatories.csv"]);
    expect(paths("e.g. version 1.5 of node.js is 3.14 times faster, mail me@x.com")).toEqual(["node.js"]);
  });

  it("leaves URLs and paths climbing out alone", () => {
    expect(paths("from https://example.com/a/b.png and ../secret/x.txt")).toEqual([]);
  });

  it("keeps every character: the parts join back to the text", () => {
    const text = "Charts: generated_assets/a.svg, generated_assets/b.png; done.";
    expect(
      splitAnswer(text)
        .map((p) => p.text)
        .join(""),
    ).toBe(text);
  });
});

describe("historyToItems", () => {
  const trace: TraceMessage[] = [
    { role: "system", content: "You are textide." },
    { role: "user", content: "chart planets" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "t1", name: "fs_search_files", args: { query: "planets.xlsx" } }],
    },
    { role: "tool", toolCallId: "t1", name: "fs_search_files", content: "data/planets.xlsx", isError: false },
    { role: "assistant", content: "Found it.", toolCalls: [{ id: "t2", name: "exec_run_js", args: { code: "1" } }] },
  ];

  it("turns a stored thread into user, tool and assistant items with results", () => {
    const items = historyToItems("th", trace);
    expect(items.map((i) => i.kind)).toEqual(["user", "tool", "assistant", "tool"]);
    expect(items[1]).toMatchObject({
      name: "fs_search_files",
      done: true,
      isError: false,
      summary: "data/planets.xlsx",
    });
    expect(items[3]).toMatchObject({ name: "exec_run_js", done: false });
  });

  it("shows trailing unanswered calls as approval cards when approvals are on", () => {
    const items = historyToItems("th", trace, true);
    expect(items[3]).toMatchObject({ kind: "approval", name: "exec_run_js", args: { code: "1" } });
    expect(items[1]?.kind).toBe("tool");
  });

  it("keeps a stored tool result whole, for the card to bound", () => {
    const long: TraceMessage[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "fs_read_file", args: {} }] },
      { role: "tool", toolCallId: "a", name: "fs_read_file", content: "x".repeat(5000), isError: true },
    ];
    const [tool] = historyToItems("th", long);
    expect(tool).toMatchObject({ isError: true });
    expect((tool as { summary: string }).summary).toHaveLength(5000);
  });
});
