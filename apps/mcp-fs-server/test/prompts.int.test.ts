import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connectStdioBinary } from "./helpers/serve.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

// Issue 14: prompts that clients show as commands, with path completion from the workspace, served by
// the built binary over stdio to the SDK's own client.

let ws: TmpWorkspace;
let client: Client;

beforeAll(async () => {
  ws = await makeWorkspace({
    "node_modules/pkg/planets-copy.csv": "a,b\n1,2\n",
    ".git/planets.csv": "a\n",
    "generated_assets-like/planet-notes.txt": "not the assets root\n",
  });
  await writeFile(path.join(ws.assets, "earlier-chart.png"), "png");
  client = await connectStdioBinary(ws, "prompts");
}, 30_000);
afterAll(async () => {
  await client.close();
  await ws.cleanup();
});

const text = (r: { messages: { content: { type: string; text?: string } }[] }) =>
  r.messages.map((m) => (m.content.type === "text" ? (m.content.text ?? "") : "")).join("\n");

async function complete(prompt: string, argument: string, value: string): Promise<string[]> {
  const r = await client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name: argument, value } });
  return r.completion.values;
}

describe("prompts", () => {
  it("are declared in the capabilities and listed with their arguments", async () => {
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    expect(client.getServerCapabilities()?.completions).toBeDefined();
    const { prompts } = await client.listPrompts();
    const byName = Object.fromEntries(prompts.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(["chart-table", "describe-file", "find-files"]);
    expect(byName["describe-file"]!.arguments).toEqual([expect.objectContaining({ name: "path", required: true })]);
    expect(byName["chart-table"]!.arguments?.map((a) => [a.name, a.required ?? false])).toEqual([
      ["path", true],
      ["what", false],
    ]);
    expect(byName["find-files"]!.arguments).toEqual([expect.objectContaining({ name: "topic", required: true })]);
    for (const p of prompts) expect(p.description, p.name).toBeTruthy();
  });

  it("describe-file names the file as tools show it and the tools to use", async () => {
    const r = await client.getPrompt({ name: "describe-file", arguments: { path: "data/planets.xlsx" } });
    expect(r.messages[0]!.role).toBe("user");
    expect(text(r)).toContain("`data/planets.xlsx`");
    expect(text(r)).toMatch(/fs_read_file/);
    expect(text(r)).toMatch(/readTable/);
    const abs = await client.getPrompt({
      name: "describe-file",
      arguments: { path: path.join(ws.project, "notes/ideas.md") },
    });
    expect(text(abs)).toContain("`notes/ideas.md`");
  });

  it("refuses paths outside the roots, missing files and directories with an error that says so", async () => {
    await expect(client.getPrompt({ name: "describe-file", arguments: { path: "../etc/passwd" } })).rejects.toThrow(
      /outside|allowed/i,
    );
    await expect(client.getPrompt({ name: "describe-file", arguments: { path: "data/nope.csv" } })).rejects.toThrow(
      /No file at data\/nope\.csv/,
    );
    await expect(client.getPrompt({ name: "describe-file", arguments: { path: "data" } })).rejects.toThrow(/directory/);
  });

  it("chart-table and find-files fill in their arguments", async () => {
    const chart = await client.getPrompt({
      name: "chart-table",
      arguments: { path: "data/moons/major-moons.tsv", what: "moon radius by planet" },
    });
    expect(text(chart)).toContain("moon radius by planet");
    expect(text(chart)).toContain('readTable("data/moons/major-moons.tsv")');
    const anyChart = await client.getPrompt({ name: "chart-table", arguments: { path: "data/observatories.csv" } });
    expect(text(anyChart)).toContain("`data/observatories.csv`");
    const find = await client.getPrompt({ name: "find-files", arguments: { topic: "moons of Jupiter" } });
    expect(text(find)).toContain("moons of Jupiter");
    expect(text(find)).toContain("fs_search_files");
  });

  it("completes paths from both roots, prefix matches first, skipping .git and node_modules", async () => {
    expect(await complete("describe-file", "path", "data/pl")).toEqual(["data/planets.xlsx"]);
    const notes = await complete("describe-file", "path", "NOTES");
    expect(notes.slice(0, 2)).toEqual(["notes/ideas.md", "notes/observing-log.md"]);
    expect(notes).toContain("generated_assets-like/planet-notes.txt");
    const planets = await complete("describe-file", "path", "planet");
    expect(planets).toEqual(expect.arrayContaining(["data/planets.xlsx", "generated_assets-like/planet-notes.txt"]));
    expect(planets.some((p) => p.includes("node_modules") || p.includes(".git"))).toBe(false);
    expect(await complete("describe-file", "path", "gen")).toContain("generated_assets/earlier-chart.png");
    const all = await complete("describe-file", "path", "");
    expect(all).toEqual(expect.arrayContaining(["README.md", "notes/ideas.md", "images/solar-system.png"]));
    const dataFirst = await complete("describe-file", "path", "data/");
    expect(dataFirst.every((p) => p.startsWith("data/"))).toBe(true);
  });

  it("offers only tables for chart-table's path, and nothing for free text", async () => {
    const tables = await complete("chart-table", "path", "");
    expect(tables.length).toBeGreaterThan(0);
    expect(tables.every((p) => /\.(csv|tsv|xlsx|json)$/.test(p))).toBe(true);
    expect(tables).toEqual(expect.arrayContaining(["data/planets.xlsx", "reports/2024/exoplanet-discoveries.csv"]));
    expect(await complete("find-files", "topic", "moo")).toEqual([]);
  });
});
