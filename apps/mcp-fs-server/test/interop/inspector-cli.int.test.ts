import { execFile } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL } from "@textide/shared";
import { makeWorkspace, SERVER_BIN, type TmpWorkspace } from "../helpers/tmp-root.js";
import { auditLogOf } from "./checks.js";
import { BIN, startHttpServer, TOKEN, type HttpServer } from "./servers.js";

// Issue 14 with the MCP Inspector's CLI mode (`mcp-inspector-cli --cli`), one process per method as
// people script it. Its SDK 1.x client checks every structuredContent against the tool's
// outputSchema, so a tools/call that succeeds here passed that check.

/** Each call starts two or three processes; a busy machine makes that slow, never wrong. */
const CALL_TIMEOUT = 120_000;

let ws: TmpWorkspace;
let http: HttpServer;

beforeAll(async () => {
  [ws, http] = await Promise.all([makeWorkspace(), startHttpServer()]);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([http?.stop(), ws?.cleanup()]);
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the Inspector CLI; the server's settings go by environment so its flags cannot clash. */
function inspector(target: string[], method: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN("mcp-inspector-cli"), "--cli", ...target, ...method],
      {
        // The CLI finds its own package.json as "../package.json" from the working directory (a bug
        // of 1.0.3: it then imports it relative to itself), so it runs from its build folder.
        cwd: path.join(path.dirname(realpathSync(BIN("mcp-inspector-cli")))),
        env: {
          ...process.env,
          PROJECT_ROOT: ws.project,
          GENERATED_ASSETS: ws.assets,
          EXEC_AUDIT_LOG: auditLogOf(ws.base),
          LOG_LEVEL: "warn",
        },
        timeout: CALL_TIMEOUT,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const TARGETS: Record<string, () => string[]> = {
  stdio: () => [process.execPath, SERVER_BIN],
  http: () => [http.url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`],
};

/** What the CLI prints on stderr besides its own v1 deprecation notice. */
const complaints = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.trim() && !/deprecated|Upgrade:|security fixes only/.test(l))
    .join("\n");

// One process per call, so the calls of a transport run side by side; each transport gets the checks
// that differ there (a tool error's path is the same code on both).
describe.concurrent.each(Object.keys(TARGETS))("MCP Inspector CLI over %s", (transport) => {
  const run = (...method: string[]) => inspector(TARGETS[transport]!(), method);

  it(
    "lists the tools, each with an output schema",
    async () => {
      const r = await run("--method", "tools/list");
      expect(r.code, r.stderr).toBe(0);
      const { tools } = JSON.parse(r.stdout) as { tools: { name: string; outputSchema?: object }[] };
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining([TOOL.readFile, TOOL.runJs]));
      for (const t of tools) expect(t.outputSchema, t.name).toBeTypeOf("object");
    },
    CALL_TIMEOUT,
  );

  it(
    "calls exec_run_js and its structured result passes the output-schema check",
    async () => {
      const r = await run(
        "--method",
        "tools/call",
        "--tool-name",
        TOOL.runJs,
        "--tool-arg",
        "code=return { planets: (await readTable('data/planets.xlsx')).length, nested: [1, 'two', null] }",
      );
      expect(r.code, r.stderr).toBe(0);
      expect(complaints(r.stderr)).toBe("");
      expect(JSON.parse(r.stdout)).toMatchObject({
        structuredContent: { ok: true, result: { planets: 8, nested: [1, "two", null] } },
      });
    },
    CALL_TIMEOUT,
  );

  it.runIf(transport === "stdio")(
    "prints a tool error as an isError result",
    async () => {
      const r = await run("--method", "tools/call", "--tool-name", TOOL.readFile, "--tool-arg", "path=nope.txt");
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { isError: boolean; content: { text: string }[] };
      expect(out.isError).toBe(true);
      expect(out.content[0]!.text).toMatch(/^not_found: /);
    },
    CALL_TIMEOUT,
  );

  it.runIf(transport === "http")(
    "lists the prompts",
    async () => {
      const r = await run("--method", "prompts/list");
      expect(r.code, r.stderr).toBe(0);
      const { prompts } = JSON.parse(r.stdout) as { prompts: { name: string }[] };
      expect(prompts.map((p) => p.name)).toContain("describe-file");
    },
    CALL_TIMEOUT,
  );
});
