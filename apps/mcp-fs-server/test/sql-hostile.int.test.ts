import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { sqlQueryOutput, TOOL, type ExecErrorKind } from "@textide/shared";
import { connectInMemory, textOf, type Connected } from "./helpers/connect.js";
import { makeWorkspace, SERVER_BIN, type TmpWorkspace } from "./helpers/tmp-root.js";

// Hostile SQL through the real MCP protocol: each case must be contained (an error of the expected
// kind, nothing read or written outside) and the server must answer a normal query right after.
const SECRET = "SECRET-OUTSIDE-42";
const TIMEOUT_MS = 2_000;
const SWAPPER = fileURLToPath(new URL("../../../packages/shared/test/fixtures/swapper.mjs", import.meta.url));

let c: Connected;
let outside: string;
let outsideBefore: string[];

beforeAll(async () => {
  c = await connectInMemory({
    copySample: false,
    files: { "data/ok.csv": "a,b\n1,x\n2,y\n", "race/d/t.csv": "v\ninside\n" },
    sql: { sandbox: "auto", timeoutMs: TIMEOUT_MS },
  });
  outside = await mkdtemp(path.join(os.tmpdir(), "textide-sql-outside-"));
  await writeFile(path.join(outside, "secret.csv"), `v\n${SECRET}\n`);
  await writeFile(path.join(outside, "t.csv"), `v\n${SECRET}\n`);
  await writeFile(path.join(outside, "victim.csv"), `v\n${SECRET}\n`);
  await symlink(path.join(outside, "secret.csv"), path.join(c.ws.project, "data/link.csv"));
  await symlink(outside, path.join(c.ws.project, "linkdir"));
  await symlink(path.join(outside, "victim.csv"), path.join(c.ws.assets, "victim.csv"));
  await symlink(outside, path.join(c.ws.assets, "outdir"));
  outsideBefore = (await readdir(outside)).sort();
}, 60_000);

afterAll(async () => {
  await c.close();
  await rm(outside, { recursive: true, force: true });
});

interface Reply {
  isError: boolean;
  kind: ExecErrorKind | undefined;
  text: string;
  rows: unknown[][];
}

function reply(r: CallToolResult): Reply {
  const s = sqlQueryOutput.parse(r.structuredContent);
  return { isError: r.isError === true, kind: s.error?.kind, text: textOf(r), rows: s.rows };
}

const sql = async (query: string, maxRows?: number): Promise<Reply> =>
  reply(await c.call(TOOL.sqlQuery, { sql: query, ...(maxRows ? { maxRows } : {}) }));

/** Nothing outside changed, no secret came back, and a normal query works. */
async function expectContained(r: Reply): Promise<void> {
  expect(JSON.stringify(r)).not.toContain(SECRET);
  expect((await readdir(outside)).sort()).toEqual(outsideBefore);
  expect(await readFile(path.join(outside, "victim.csv"), "utf8")).toContain(SECRET);
  const ok = await sql("SELECT sum(a) AS s FROM 'data/ok.csv'");
  expect(ok).toMatchObject({ isError: false, rows: [[3]] });
}

interface Case {
  name: string;
  sql: () => string;
  kind: ExecErrorKind | ExecErrorKind[];
  message?: RegExp;
}

const abs = (name: string) => path.join(outside, name);

/** Pids of sql workers started for `project` (their command line names the worker script and the root). */
function workerPids(project: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (cmd[0] === process.execPath && cmd.some((a) => a.endsWith("sql/worker.js")) && cmd.includes(project))
        pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

const cases: Case[] = [
  // Reading outside the roots.
  { name: "an absolute path outside", sql: () => `SELECT * FROM '${abs("secret.csv")}'`, kind: "policy" },
  { name: "a relative path climbing out", sql: () => "SELECT * FROM '../../secret.csv'", kind: "policy" },
  { name: "a file symlink pointing outside", sql: () => "SELECT * FROM 'data/link.csv'", kind: "policy" },
  // Under bubblewrap the link's target is not mounted in the worker at all: "does not exist".
  {
    name: "a folder symlink pointing outside",
    sql: () => "SELECT * FROM 'linkdir/secret.csv'",
    kind: ["policy", "runtime"],
  },
  {
    name: "read_csv with an outside path",
    sql: () => `SELECT * FROM read_csv('${abs("secret.csv")}')`,
    kind: "policy",
  },
  { name: "read_text of a system file", sql: () => "SELECT * FROM read_text('/etc/passwd')", kind: "policy" },
  { name: "read_blob of a system file", sql: () => "SELECT * FROM read_blob('/etc/hostname')", kind: "policy" },
  {
    name: "an E'' string the rewriter leaves alone",
    sql: () => `SELECT * FROM read_csv(E'${abs("secret.csv")}')`,
    kind: "policy",
  },
  {
    name: "a dollar-quoted path",
    sql: () => `SELECT * FROM read_csv($$${abs("secret.csv")}$$)`,
    kind: "policy",
  },
  { name: "a glob outside", sql: () => `SELECT * FROM read_csv('${outside}/*.csv')`, kind: "policy" },
  {
    name: "a path hidden in a string concatenation",
    sql: () => `SELECT * FROM read_csv('${outside}' || '/secret.csv')`,
    kind: "policy",
  },
  { name: "a URL", sql: () => "SELECT * FROM 'https://example.com/x.csv'", kind: ["policy", "runtime"] },
  // Writing outside generated_assets.
  { name: "COPY to an absolute path outside", sql: () => `COPY (SELECT 1) TO '${abs("pwn.csv")}'`, kind: "policy" },
  { name: "COPY into the read-only project", sql: () => "COPY (SELECT 1) TO 'data/pwn.csv'", kind: "policy" },
  {
    name: "COPY climbing out of generated_assets",
    sql: () => "COPY (SELECT 1) TO 'generated_assets/../../pwn.csv'",
    kind: "policy",
  },
  {
    name: "COPY through a folder symlink in generated_assets",
    sql: () => "COPY (SELECT 1) TO 'generated_assets/outdir/pwn.csv'",
    kind: ["policy", "runtime"],
  },
  { name: "COPY to an E'' path", sql: () => `COPY (SELECT 1) TO E'${abs("pwn.csv")}'`, kind: "policy" },
  {
    name: "COPY with a forbidden format",
    sql: () => "COPY (SELECT 1) TO 'generated_assets/x.sh' (FORMAT csv)",
    kind: "policy",
  },
  {
    name: "COPY that makes a folder (PARTITION_BY)",
    sql: () => "COPY (SELECT 1 AS k, 2 AS v) TO 'generated_assets/part.csv' (PARTITION_BY (k))",
    kind: ["policy", "runtime"],
  },
  // Reaching beyond the query's own database and configuration.
  { name: "ATTACH a file outside", sql: () => `ATTACH '${abs("x.db")}' AS x`, kind: "policy" },
  { name: "ATTACH in memory", sql: () => "ATTACH ':memory:' AS m", kind: "policy" },
  { name: "INSTALL an extension", sql: () => "INSTALL httpfs", kind: "policy" },
  { name: "LOAD an extension", sql: () => "LOAD httpfs", kind: "policy" },
  { name: "SET a locked option", sql: () => "SET enable_external_access = true", kind: "policy" },
  { name: "RESET the lock", sql: () => "RESET lock_configuration", kind: "policy" },
  { name: "SET through a PRAGMA", sql: () => "PRAGMA memory_limit='100GB'", kind: "policy" },
  { name: "EXPORT DATABASE", sql: () => "EXPORT DATABASE 'dump'", kind: "policy" },
  {
    name: "a forbidden statement after an allowed one",
    sql: () => "COPY (SELECT 1) TO 'generated_assets/first.csv'; SET threads = 64",
    kind: "policy",
  },
  { name: "getenv", sql: () => "SELECT getenv('HOME')", kind: "runtime", message: /getenv does not exist/ },
  // Runaway and exploding queries.
  {
    name: "a runaway scan (range 1e12)",
    sql: () => "SELECT count(*) FROM range(1000000000000)",
    kind: "timeout",
  },
  {
    name: "a huge cross join",
    sql: () => "SELECT count(*) FROM range(1000000) a, range(1000000) b",
    kind: "timeout",
  },
  {
    name: "an unbounded recursive CTE",
    sql: () => "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t",
    kind: ["timeout", "memory"],
  },
  {
    name: "a query that wants more memory than allowed",
    sql: () => "SELECT count(DISTINCT s) FROM (SELECT repeat(i::VARCHAR, 200) AS s FROM range(100000000) r(i))",
    kind: ["memory", "timeout"],
  },
];

describe("hostile SQL is contained and the server keeps answering", () => {
  for (const k of cases) {
    it(
      k.name,
      async () => {
        const r = await sql(k.sql());
        expect(r.isError, r.text).toBe(true);
        expect([k.kind].flat(), r.text).toContain(r.kind);
        if (k.message) expect(r.text).toMatch(k.message);
        await expectContained(r);
      },
      30_000,
    );
  }

  it("writes nothing from a call that failed a policy check", () => {
    expect(existsSync(path.join(c.ws.assets, "first.csv"))).toBe(false);
    expect(existsSync(path.join(c.ws.project, "data/pwn.csv"))).toBe(false);
    expect(existsSync(path.join(c.ws.base, "pwn.csv"))).toBe(false);
  });

  it("COPY onto a symlink in generated_assets is refused; the file it points to is untouched", async () => {
    const r = await sql("COPY (SELECT 'mine' AS v) TO 'generated_assets/victim.csv'");
    expect(r).toMatchObject({ isError: true, kind: "policy" });
    expect(r.text).toMatch(/symbolic link/);
    await expectContained(r);
  });

  it("caps the rows of an endless result without running it to the end", async () => {
    const r = await sql("SELECT * FROM range(1000000000000)", 10_000);
    expect(r.isError).toBe(false);
    expect(r.rows).toHaveLength(10_000);
    await expectContained(r);
  }, 30_000);

  it("shows no environment and no workspace paths in the settings", async () => {
    const r = await sql("SELECT name, value FROM duckdb_settings()", 10_000);
    expect(r.isError).toBe(false);
    const all = JSON.stringify(r.rows);
    for (const leak of [c.ws.project, c.ws.assets, os.homedir(), process.env.PATH ?? "\0"])
      expect(all).not.toContain(leak);
    const locked = r.rows.find((row) => row[0] === "lock_configuration");
    expect(locked?.[1]).toBe("true");
    const setting = (name: string) => r.rows.find((row) => row[0] === name)?.[1];
    expect(setting("enable_external_access")).toBe("false");
    expect(setting("autoload_known_extensions")).toBe("false");
    expect(setting("autoinstall_known_extensions")).toBe("false");
    expect(setting("threads")).toBe("2");
    expect(setting("memory_limit")).toMatch(/^(1024\.0 MiB|1\.0 GiB|976\.[0-9] MiB)$/);
  });

  it("survives its DuckDB worker dying mid-query: that call fails, the next one gets a fresh worker", async () => {
    const running = sql("SELECT count(*) FROM range(1000000) a, range(1000000) b");
    // This test's own workers: the worker script with this test's workspace on its command line.
    let pids: number[] = [];
    for (let i = 0; i < 100 && pids.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pids = workerPids(c.ws.project);
    }
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    const r = await running;
    expect(r.isError).toBe(true);
    await expectContained(r);
  }, 30_000);

  it("never reads through a folder that is swapped for a symlink while queries run", async () => {
    const child: ChildProcess = spawn(process.execPath, [SWAPPER, path.join(c.ws.project, "race"), outside], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    try {
      let inside = 0;
      for (let i = 0; i < 40; i++) {
        const r = await sql("SELECT v FROM 'race/d/t.csv'");
        expect(JSON.stringify(r)).not.toContain(SECRET);
        if (!r.isError) {
          expect(r.rows).toEqual([["inside"]]);
          inside++;
        } else expect(["policy", "runtime"]).toContain(r.kind);
      }
      // Both outcomes happen: the race was real, and reads of the real folder still work.
      expect(inside).toBeGreaterThan(0);
    } finally {
      child.stdin!.end();
      await new Promise((resolve) => child.once("exit", resolve));
    }
    await expectContained({ isError: false, kind: undefined, text: "", rows: [] });
  }, 60_000);
});

describe("over the real stdio transport", () => {
  let ws: TmpWorkspace;
  let client: Client;
  beforeAll(async () => {
    ws = await makeWorkspace({ "data/ok.csv": "a\n1\n2\n" }, false);
    await writeFile(path.join(ws.base, "secret.csv"), `v\n${SECRET}\n`);
    client = new Client({ name: "sql-hostile", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVER_BIN, "--root", ws.project, "--assets", ws.assets],
        env: { PATH: process.env.PATH ?? "", SQL_TIMEOUT_SEC: String(TIMEOUT_MS / 1000), HOME: ws.base },
        stderr: "ignore",
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client.close();
    await ws.cleanup();
  });

  const call = async (query: string) =>
    reply(await client.callTool({ name: TOOL.sqlQuery, arguments: { sql: query } }));
  const alive = async () => expect(await call("SELECT sum(a) FROM 'data/ok.csv'")).toMatchObject({ rows: [[3]] });

  for (const [name, query, kind] of [
    ["reads outside the roots", () => `SELECT * FROM '${path.join(ws.base, "secret.csv")}'`, "policy"],
    ["writes outside generated_assets", () => `COPY (SELECT 1) TO '${path.join(ws.base, "pwn.csv")}'`, "policy"],
    ["unlocks the configuration", () => "SET lock_configuration = false", "policy"],
    ["runs away", () => "SELECT count(*) FROM range(1000000) a, range(1000000) b", "timeout"],
  ] as const) {
    it(
      name,
      async () => {
        const r = await call(query());
        expect(r).toMatchObject({ isError: true, kind });
        expect(r.text).not.toContain(SECRET);
        expect(existsSync(path.join(ws.base, "pwn.csv"))).toBe(false);
        await alive();
      },
      30_000,
    );
  }
});
