import { readFile } from "node:fs/promises";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPythonOutput, TOOL, type RunPythonOutput } from "@textide/shared";
import { connectInMemory, textOf, type Connected } from "./helpers/connect.js";
import { pythonUnavailableHere } from "./helpers/python.js";

const unavailable = await pythonUnavailableHere();

let c: Connected;
beforeAll(async () => {
  c = await connectInMemory();
}, 60_000);
afterAll(() => c?.close());

async function run(code: string, opts: { timeoutMs?: number; memoryMb?: number } = {}) {
  const r = await c.call(TOOL.runPython, { code, ...opts });
  const out: RunPythonOutput = runPythonOutput.parse(r.structuredContent);
  return { ...out, isError: r.isError === true, raw: r };
}

describe.skipIf(unavailable !== undefined)("exec_run_python: the contract", () => {
  it("is listed with input and output schemas and a description written for a model", async () => {
    const { tools } = await c.client.listTools();
    const tool = tools.find((t) => t.name === TOOL.runPython);
    expect(tool?.description).toMatch(/pandas/);
    expect(tool?.description).toMatch(/generated_assets/);
    expect(tool?.inputSchema.required).toEqual(["code"]);
    expect(tool?.outputSchema?.properties).toHaveProperty("outputs");
  });

  it("returns the final expression's value as JSON, print() output as logs, and timings", async () => {
    const r = await run(
      'import math\nprint("hello")\nprint("to stderr", file=__import__("sys").stderr)\n{"pi": round(math.pi, 2), "n": np.int64(3), "t": (1, 2)}',
    );
    expect(r).toMatchObject({ ok: true, isError: false, result: { pi: 3.14, n: 3, t: [1, 2] } });
    expect(r.logs).toBe("hello\nto stderr\n");
    expect(r.logsTruncated).toBe(false);
    expect(r.outputs).toEqual([]);
    expect(r.durationMs).toBeGreaterThan(0);
    expect(r.queueMs).toBeGreaterThanOrEqual(0);
  });

  it("falls back to repr for values that are not JSON, and has no result without a final expression", async () => {
    const frame = await run('pd.DataFrame({"a": [1, 2]})');
    expect(frame.ok).toBe(true);
    expect(frame.result).toMatch(/a\n0\s+1\n1\s+2/);
    const none = await run("x = 1");
    expect(none.ok).toBe(true);
    expect(none).not.toHaveProperty("result");
  });

  it("reads project files by their workspace path, like the fs tools", async () => {
    const r = await run('df = pd.read_excel("data/planets.xlsx")\n[len(df), df.columns[0]]');
    expect(r).toMatchObject({ ok: true, result: [expect.any(Number), "Planet"] });
    expect((r.result as number[])[0]).toBeGreaterThan(5);
  });

  it("lists written files as outputs and returns PNG charts as image content", async () => {
    const r = await run(
      [
        'df = pd.read_excel("data/planets.xlsx").nlargest(5, "Diameter (km)")',
        "fig, ax = plt.subplots(figsize=(4, 4))",
        'ax.pie(df["Diameter (km)"], labels=df["Planet"])',
        'fig.savefig("generated_assets/charts/pie.png")',
        'df.to_csv("generated_assets/top5.csv", index=False)',
        'df["Planet"].tolist()',
      ].join("\n"),
    );
    // The folder must exist first: the code did not create it.
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe("runtime");
    expect(r.error?.line).toBe(4);
    const ok = await run(
      [
        'import os\nos.makedirs("generated_assets/charts", exist_ok=True)',
        'df = pd.read_excel("data/planets.xlsx").nlargest(5, "Diameter (km)")',
        "fig, ax = plt.subplots(figsize=(4, 4))",
        'ax.pie(df["Diameter (km)"], labels=df["Planet"])',
        'fig.savefig("generated_assets/charts/pie.png")',
        'df.to_csv("generated_assets/top5.csv", index=False)',
        'df["Planet"].tolist()',
      ].join("\n"),
    );
    expect(ok.ok).toBe(true);
    expect(ok.outputs.map((o) => o.path).sort()).toEqual([
      "generated_assets/charts/pie.png",
      "generated_assets/top5.csv",
    ]);
    const png = ok.outputs.find((o) => o.path.endsWith(".png"))!;
    expect(png.mime).toBe("image/png");
    const bytes = await readFile(path.join(c.ws.assets, "charts/pie.png"));
    expect(png.bytes).toBe(bytes.length);
    expect(PNG.sync.read(bytes).width).toBe(400);
    const image = ok.raw.content.find((b) => b.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png", data: bytes.toString("base64") });
    expect(textOf(ok.raw)).toContain("generated_assets/top5.csv");
  });

  it.each([
    ["syntax", "x = 1\ny = (\n", "syntax", 2],
    ["runtime", "a = 1\nb = 0\na / b", "runtime", 3],
    ["runtime in a function", "def f(x):\n    return x['missing']\n\nf({})", "runtime", 2],
    ["timeout", "while True:\n    pass", "timeout", undefined],
    ["memory", "big = bytearray(2000 * 1024 * 1024)", "memory", 1],
    ["policy (a project write)", 'open("data/new.txt", "w").write("x")', "policy", 1],
    [
      "limit (a file over 100 MB)",
      'f = open("generated_assets/big.bin", "wb")\nf.write(b"0" * (101 * 1024 * 1024))',
      "limit",
      2,
    ],
  ] as const)("reports a %s error with its kind and the line of the user's code", async (_n, code, kind, line) => {
    const r = await run(code, { timeoutMs: 3000 });
    expect(r.ok).toBe(false);
    expect(r.isError).toBe(true);
    expect(r.error?.kind).toBe(kind);
    if (line !== undefined) expect(r.error?.line).toBe(line);
    // The traceback shows the user's code, never the zygote's frames.
    expect(r.error?.message).not.toMatch(/zygote/);
  });

  it("trims the traceback to the user's code and names the exception", async () => {
    const r = await run("def inner():\n    raise ValueError('bad value')\n\ninner()");
    expect(r.error?.message).toMatch(/File "<code>", line 4/);
    expect(r.error?.message).toMatch(/File "<code>", line 2, in inner/);
    expect(r.error?.message).toMatch(/ValueError: bad value$/);
  });

  it("keeps no state between calls", async () => {
    await run('secret = 41\nopen("/tmp/note", "w").write("x")');
    const r = await run('import os\n["secret" in globals(), os.path.exists("/tmp/note")]');
    expect(r.result).toEqual([false, false]);
  });

  it("runs two calls at once: each waits for the other to start, which a single runner could not do", async () => {
    // A rendezvous through generated_assets: each run announces itself and waits for the other one.
    const meet = (me: string, other: string) =>
      `import os, time\nopen("generated_assets/${me}.ready", "w").close()\nwhile not os.path.exists("generated_assets/${other}.ready"):\n    time.sleep(0.01)\n"met"`;
    const [a, b] = await Promise.all([
      run(meet("a", "b"), { timeoutMs: 20_000 }),
      run(meet("b", "a"), { timeoutMs: 20_000 }),
    ]);
    expect([a.result, b.result]).toEqual(["met", "met"]);
    expect(a.outputs.map((o) => o.path)).toEqual(["generated_assets/a.ready"]);
  });

  it("writes each run to the exec audit log with its language", async () => {
    await run("6 * 7");
    const lines = (await readFile(path.join(c.ws.base, "audit", "exec.jsonl"), "utf8")).trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ language: "python", outcome: "ok", codePreview: "6 * 7", sandbox: "bubblewrap" });
  });
});

describe("exec_run_python without a sandbox", () => {
  it("is not listed when Python may not be sandboxed, and the server says why in one line", async () => {
    const off = await connectInMemory({ copySample: false });
    const offNone = await connectInMemory({
      copySample: false,
      exec: { auditLog: "/tmp/textide-python-off-audit.jsonl", sandbox: "none" },
    });
    try {
      for (const server of [offNone, ...(unavailable === undefined ? [] : [off])]) {
        const { tools } = await server.client.listTools();
        expect(tools.map((t) => t.name)).toContain(TOOL.runJs);
        expect(tools.map((t) => t.name)).not.toContain(TOOL.runPython);
        const linesOff = () => server.logs.filter((l) => l.includes("exec_run_python is off"));
        // Logged at start; the logger hands lines over in batches.
        await expect.poll(() => linesOff().length).toBe(1);
        const lines = linesOff();
        expect(lines[0]).not.toContain("\\n");
      }
      expect(offNone.logs.join("\n")).toMatch(
        /exec_run_python is off: EXEC_SANDBOX=none, and Python never runs unsandboxed/,
      );
    } finally {
      await Promise.all([off.close(), offNone.close()]);
    }
  });
});

describe.skipIf(unavailable === undefined)("exec_run_python where it cannot run", () => {
  it("is not listed", async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain(TOOL.runPython);
  });
});
