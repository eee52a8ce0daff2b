import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { TOOL } from "@textide/shared";

// What every client must see from the server, written once against the smallest client shape that
// the SDK 1.x and v2 clients (and what wraps them) share.

export interface ToolResultLike {
  isError?: boolean | undefined;
  content: unknown[];
  structuredContent?: Record<string, unknown> | undefined;
}

export interface AnyClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResultLike>;
}

/** 2.5 MB of text: larger than any one reply may be, so it must come back as a page. */
export const BIG_TEXT = Array.from({ length: 50_000 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(4)}`).join("\n");
export const FILES = { "big.txt": BIG_TEXT };

export const textOf = (r: ToolResultLike): string =>
  r.content
    .map((c) => (c as { type: string; text?: string }).text ?? "")
    .join("\n")
    .trim();

export async function checkToolsListCallAndError(c: AnyClient): Promise<void> {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining([TOOL.readFile, TOOL.searchFiles, TOOL.runJs]));
  const found = await c.call(TOOL.searchFiles, { query: "planets" });
  expect(found.isError).toBeFalsy();
  expect(textOf(found)).toContain("data/planets.xlsx");
  const missing = await c.call(TOOL.readFile, { path: "data/no-such-file.csv" });
  expect(missing.isError).toBe(true);
  expect(textOf(missing)).toMatch(/^not_found: .*data\/no-such-file\.csv/);
}

/** A read of the most a page may hold comes back whole, as a page that says where to go on. */
export async function checkLargePage(c: AnyClient): Promise<void> {
  const page = await c.call(TOOL.readFile, { path: "big.txt", maxBytes: 1_048_576 });
  expect(page.isError).toBeFalsy();
  const s = page.structuredContent!;
  expect(s.truncated).toBe(true);
  expect(s.nextOffset).toBeGreaterThan(500_000);
  expect(BIG_TEXT.startsWith(textOf(page).split("\n[truncated")[0]!.slice(0, 1000))).toBe(true);
  const rest = await c.call(TOOL.readFile, { path: "big.txt", offset: s.nextOffset, maxBytes: 1_048_576 });
  expect(rest.isError).toBeFalsy();
  expect(rest.structuredContent!.offset).toBe(s.nextOffset);
}

/**
 * A cancelled run stops on the server: the audit log records it as cancelled (a run nobody stopped
 * would run on to its 30 s limit), and the client can go on calling.
 */
export async function checkCancellation(c: AnyClient, auditLog: string, marker: string): Promise<void> {
  const abort = new AbortController();
  const run = c.call(TOOL.runJs, { code: `// ${marker}\nwhile (true) {}`, timeoutMs: 30_000 }, abort.signal);
  // Cancel once the run is surely in the server's hands: its code shows up in no log before it ends,
  // so wait for a call made after it to come back first.
  await c.call(TOOL.searchFiles, { query: "planets" });
  abort.abort();
  await expect(run).rejects.toThrow();
  await expect
    .poll(() => auditOutcome(auditLog, marker), { timeout: 30_000, interval: 200 })
    .toMatch(/^Cancelled by the client/);
  const after = await c.call(TOOL.runJs, { code: "return 6 * 7" });
  expect(after.structuredContent).toMatchObject({ ok: true, result: 42 });
}

/** The audit log's word on the run whose code holds `marker`: its error, or its outcome. */
async function auditOutcome(file: string, marker: string): Promise<string | undefined> {
  const text = await readFile(file, "utf8").catch(() => "");
  const entry = text
    .split("\n")
    .filter((line) => line.includes(marker))
    .map((line) => JSON.parse(line) as { outcome?: string; error?: string })[0];
  return entry && (entry.error ?? entry.outcome);
}

export const auditLogOf = (base: string) => path.join(base, "audit.jsonl");

/** Code that finishes only once another run has written `name`: two runs that queued would never meet. */
export const waitForFile = (name: string) => `for (let i = 0; i < 100000; i++) {
  if ((await listFiles("generated_assets")).some((p) => p.endsWith("${name}"))) return "met";
}
return "never met";`;
export const writeTheFile = (name: string) => `return await writeFile("${name}", "here");`;
