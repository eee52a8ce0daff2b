import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJsOutput, TOOL, type ExecErrorKind, type RunJsOutput } from "@textide/shared";
import { connectInMemory, type Connected } from "./helpers/connect.js";

let c: Connected;

beforeAll(async () => {
  c = await connectInMemory();
  await writeFile(path.join(c.ws.base, "outside-secret.txt"), "TOP SECRET");
  await symlink(path.join(c.ws.base, "outside-secret.txt"), path.join(c.ws.project, "leak.txt"));
  await symlink(path.join(c.ws.base, "outside-secret.txt"), path.join(c.ws.assets, "leak-out.csv"));
});
afterAll(() => c.close());

async function run(
  code: string,
  opts: { timeoutMs?: number; memoryMb?: number } = {},
): Promise<RunJsOutput & { isError: boolean }> {
  const r = await c.call(TOOL.runJs, { code, ...opts });
  return { ...runJsOutput.parse(r.structuredContent), isError: r.isError === true };
}

/** Every hostile case must leave a working sandbox behind. */
async function expectAlive(): Promise<void> {
  const r = await run("return 6 * 7");
  expect(r).toMatchObject({ ok: true, result: 42 });
}

interface HostileCase {
  name: string;
  code: string;
  kind: ExecErrorKind;
  opts?: { timeoutMs?: number; memoryMb?: number };
  message?: RegExp;
}

const hostile: HostileCase[] = [
  { name: "an infinite loop", code: "while (true) {}", kind: "timeout", opts: { timeoutMs: 400 } },
  {
    name: "a microtask loop",
    code: "const f = () => Promise.resolve().then(f); f(); await new Promise(() => {});",
    kind: "timeout",
    opts: { timeoutMs: 400 },
  },
  {
    name: "a promise that never settles",
    code: "await new Promise(() => {});",
    kind: "timeout",
    opts: { timeoutMs: 300 },
  },
  {
    name: "a catastrophic regex",
    code: 'return /^(a+)+$/.test("a".repeat(40) + "!");',
    kind: "timeout",
    opts: { timeoutMs: 400 },
  },
  {
    name: "a memory bomb by many pushes",
    code: "const a = []; for (;;) a.push(new Array(100000).fill(1));",
    kind: "memory",
    opts: { memoryMb: 32 },
  },
  {
    name: "one huge allocation",
    code: "return new ArrayBuffer(2 ** 31).byteLength;",
    kind: "memory",
    opts: { memoryMb: 32 },
  },
  // A single builtin call the isolate cannot interrupt: the parent kills and replaces the runner.
  {
    name: "a huge uninterruptible fill",
    code: "return new Array(5e8).fill(0).length;",
    kind: "timeout",
    opts: { timeoutMs: 500 },
  },
  {
    name: "a huge typed array",
    code: "const b = new Float64Array(2 ** 28); b.fill(1); return b.length;",
    kind: "memory",
    opts: { memoryMb: 32 },
  },
  {
    name: "require",
    code: 'return require("fs").readFileSync("/etc/passwd", "utf8");',
    kind: "runtime",
    message: /require is not defined/,
  },
  { name: "process", code: "return process.env;", kind: "runtime", message: /process is not defined/ },
  {
    name: "dynamic import()",
    code: 'const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd", "utf8");',
    kind: "runtime",
  },
  {
    name: "fetch",
    code: 'return await fetch("http://127.0.0.1:1/");',
    kind: "runtime",
    message: /fetch is not defined/,
  },
  {
    name: "WebAssembly",
    code: "return WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));",
    kind: "runtime",
    message: /WebAssembly is not defined/,
  },
  {
    name: "the constructor chain from this",
    code: "return this.constructor.constructor('return process')().env;",
    kind: "runtime",
    message: /process is not defined/,
  },
  {
    name: "the constructor chain from a host function",
    code: "return readTable.constructor('return process')().mainModule;",
    kind: "runtime",
    message: /process is not defined/,
  },
  {
    name: "the async-function constructor",
    code: "const AF = Object.getPrototypeOf(async function () {}).constructor; return await AF('return process')();",
    kind: "runtime",
    message: /process is not defined/,
  },
  {
    name: "the constructor chain from copied host data",
    code: 'const rows = await readTable("data/planets.xlsx"); return rows.constructor.constructor("return process")().pid;',
    kind: "runtime",
    message: /process is not defined/,
  },
  {
    name: "redefining an API global",
    code: 'Object.defineProperty(globalThis, "chart", { value: () => 1 }); return 1;',
    kind: "runtime",
    message: /redefine|Cannot/,
  },
  {
    name: "deleting an API global in strict mode",
    code: '"use strict"; return (() => { "use strict"; delete globalThis.readTable; })();',
    kind: "runtime",
  },
  {
    name: "reading outside the roots with ..",
    code: 'return await readText("../../../../etc/passwd");',
    kind: "policy",
    message: /outside the allowed roots/,
  },
  { name: "reading an absolute path outside the roots", code: 'return await readText("/etc/passwd");', kind: "policy" },
  {
    name: "reading through a symlink that leaves the roots",
    code: 'return await readText("leak.txt");',
    kind: "policy",
  },
  {
    name: "writing outside generated_assets with ..",
    code: 'return await writeFile("../project_root/owned.csv", "a,b");',
    kind: "policy",
  },
  { name: "writing into project_root by absolute path", code: "", kind: "policy" },
  {
    name: "writing through a symlink in generated_assets",
    code: 'return await writeFile("leak-out.csv", "x");',
    kind: "policy",
    message: /symbolic link/,
  },
  {
    name: "writing a forbidden extension",
    code: 'return await writeFile("run.sh", "rm -rf /");',
    kind: "policy",
    message: /cannot create \.sh/,
  },
  {
    name: "an HTML file (script in the browser)",
    code: 'return await writeFile("x.html", "<script>alert(1)</script>");',
    kind: "policy",
  },
  {
    name: "a chart with data.url",
    code: 'return await chart({ data: { url: "/etc/passwd" }, mark: "bar" }, "x");',
    kind: "policy",
    message: /inline data/,
  },
  {
    name: "a chart with an image href",
    code: 'return await chart({ data: { values: [{ a: 1 }] }, mark: "image", encoding: { url: { value: "file:///etc/passwd" } } }, "x");',
    kind: "policy",
  },
  { name: "an oversized result", code: 'return "x".repeat(400 * 1024);', kind: "limit", message: /larger than 256 KB/ },
  {
    name: "too many files",
    code: 'for (let i = 0; i < 25; i++) await writeFile(`f${i}.txt`, "x");',
    kind: "limit",
    message: /At most 20 files/,
  },
  {
    name: "a too large file",
    code: 'return await writeFile("big.txt", "x".repeat(11 * 1024 * 1024));',
    kind: "limit",
    opts: { memoryMb: 256 },
  },
  { name: "a syntax error", code: "const a = 1;\nconst = 2;", kind: "syntax" },
];

describe("exec_run_js against hostile code", () => {
  beforeAll(() => {
    const abs = hostile.find((h) => h.name === "writing into project_root by absolute path")!;
    abs.code = `return await writeFile(${JSON.stringify(path.join(c.ws.project, "owned.csv"))}, "a,b");`;
  });

  it.each(hostile)("contains $name ($kind)", async ({ code, kind, opts, message }) => {
    const r = await run(code, opts);
    expect(r.ok, JSON.stringify(r)).toBe(false);
    expect(r.isError).toBe(true);
    expect(r.error?.kind, JSON.stringify(r.error)).toBe(kind);
    if (message) expect(r.error?.message).toMatch(message);
    await expectAlive();
  });

  it("keeps the API intact after globals are tampered with and prototypes polluted", async () => {
    const r = await run(`
      try { readTable = () => "fake"; } catch {}
      Object.prototype.reference = true; Object.prototype.copy = false; Array.prototype.map = null;
      const rows = await readTable("data/planets.xlsx");
      return { n: rows.length, first: rows[0].Planet, type: typeof readTable, ivm: typeof ivm, hidden: typeof __h_readTable };`);
    expect(r.result).toEqual({ n: 8, first: "Mercury", type: "function", ivm: "undefined", hidden: "undefined" });
    await expectAlive();
  });

  it("truncates a console flood and keeps the run", async () => {
    const r = await run(
      'for (let i = 0; i < 20000; i++) console.log("line " + i + " " + "x".repeat(50)); return "done";',
    );
    expect(r).toMatchObject({ ok: true, result: "done", logsTruncated: true });
    expect(Buffer.byteLength(r.logs)).toBeLessThanOrEqual(64 * 1024);
    expect(r.logs.startsWith("line 0 ")).toBe(true);
  });

  it("never writes the files of a policy violation", async () => {
    await expect(readFile(path.join(c.ws.project, "owned.csv"))).rejects.toThrow();
    expect(await readFile(path.join(c.ws.base, "outside-secret.txt"), "utf8")).toBe("TOP SECRET");
  });

  it("reports the user's line for a runtime error", async () => {
    const r = await run("const a = 1;\nconst b = 2;\nnull.boom;");
    expect(r.error).toMatchObject({ kind: "runtime", line: 3 });
  });
});

describe("exec_run_js doing its job", () => {
  it("renders the pie chart of the largest planets from planets.xlsx as PNG and SVG", async () => {
    const r = await run(`
      const rows = await readTable("data/planets.xlsx");
      const top = rows.sort((a, b) => b["Diameter (km)"] - a["Diameter (km)"]).slice(0, 5);
      const out = await chart({
        title: "Largest planets by diameter",
        data: { values: top },
        mark: { type: "arc", tooltip: true },
        encoding: { theta: { field: "Diameter (km)", type: "quantitative" }, color: { field: "Planet", type: "nominal" } }
      }, "largest-planets-pie", { format: "both" });
      return { out, planets: top.map((p) => p.Planet) };`);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const result = r.result as { out: { png: string; svg: string }; planets: string[] };
    expect(result.planets).toEqual(["Jupiter", "Saturn", "Uranus", "Neptune", "Earth"]);
    expect(result.out).toMatchObject({
      png: "generated_assets/largest-planets-pie.png",
      svg: "generated_assets/largest-planets-pie.svg",
    });
    expect(r.outputs.map((o) => o.mime).sort()).toEqual(["image/png", "image/svg+xml"]);

    const svg = await readFile(path.join(c.ws.assets, "largest-planets-pie.svg"), "utf8");
    expect(svg).toContain("Largest planets by diameter");
    for (const planet of result.planets) expect(svg).toContain(planet);

    const png = PNG.sync.read(await readFile(path.join(c.ws.assets, "largest-planets-pie.png")));
    expect(png.width).toBeGreaterThanOrEqual(200);
    expect(png.height).toBeGreaterThanOrEqual(150);
    const colours = new Set<number>();
    let nonWhite = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [rr, gg, bb] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
      colours.add((rr << 16) | (gg << 8) | bb);
      if (rr < 240 || gg < 240 || bb < 240) nonWhite++;
    }
    expect(colours.size).toBeGreaterThan(20);
    expect(nonWhite / (png.width * png.height)).toBeGreaterThan(0.05);
  });

  it("reads every table format and lists files", async () => {
    const r = await run(`
      const tsv = await readTable("data/moons/major-moons.tsv");
      const json = await readTable("data/missions.json");
      const csv = await readTable("data/observatories.csv");
      const dwarfs = await readTable("data/planets.xlsx", { sheet: "Dwarf planets" });
      const files = await listFiles("data");
      const text = await readText("notes/ideas.md");
      return { tsv: tsv.length, json: json.length, csv: csv.length, dwarfs: dwarfs.map((d) => d["Dwarf planet"]), files, hasText: text.length > 10 };`);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(r.result).toMatchObject({ tsv: 16, json: 14, csv: 15, hasText: true });
    expect((r.result as { dwarfs: string[] }).dwarfs).toContain("Pluto");
    expect((r.result as { files: string[] }).files).toContain("data/planets.xlsx");
  });

  it("writes files atomically into generated_assets and captures logs", async () => {
    const r = await run(
      'console.log("writing"); console.warn({ n: 1 }); return await writeFile("summary.json", { planets: 8 });',
    );
    expect(r).toMatchObject({ ok: true, result: "generated_assets/summary.json", logs: 'writing\n[warn] {"n":1}\n' });
    expect(JSON.parse(await readFile(path.join(c.ws.assets, "summary.json"), "utf8"))).toEqual({ planets: 8 });
  });

  it("appends an audit line per call, outside the roots", async () => {
    await run("return 'audited'");
    const lines = (await readFile(path.join(c.ws.base, "audit", "exec.jsonl"), "utf8")).trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ outcome: "ok", codePreview: "return 'audited'" });
    expect(last.codeSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof last.correlationId).toBe("string");
    const chartLine = lines
      .map((l) => JSON.parse(l) as { outputs: { path: string; sha256: string }[] })
      .find((l) => l.outputs.some((o) => o.path.endsWith(".png")));
    expect(chartLine?.outputs[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
