import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileSearchHit } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";

interface SearchBody {
  hits: FileSearchHit[];
  truncated: boolean;
}

const BIG = 20_000;
let ws: Workspace;
let srv: Running;

async function writeAll(dir: string, names: string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < names.length; i += 500) {
    await Promise.all(names.slice(i, i + 500).map((n) => writeFile(path.join(dir, n), "")));
  }
}

beforeAll(async () => {
  ws = await makeWorkspace();
  const p = (rel: string) => path.join(ws.project, rel);
  await mkdir(p("rank/deep/a/b/c"), { recursive: true });
  await mkdir(p("rank/plain/abc"), { recursive: true });
  await writeFile(p("rank/deep/a/b/c/planets.xlsx"), "");
  await writeFile(p("rank/planets-notes.md"), "");
  await writeFile(p("rank/plain/abc/nets.txt"), "");
  await mkdir(p("node_modules/pkg"), { recursive: true });
  await writeFile(p("node_modules/pkg/planets.js"), "");
  await mkdir(p(".git"));
  await writeFile(p(".git/planets"), "");
  await writeFile(path.join(ws.outside, "planets-secret.txt"), "");
  await symlink(ws.outside, p("link-out"));
  await writeFile(path.join(ws.assets, "planets-chart.png"), "");
  await writeAll(
    p("big"),
    Array.from({ length: BIG }, (_, i) => `item-${String(i).padStart(5, "0")}.txt`),
  );
  srv = await startServer(ws);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

async function search(query: string, limit?: number): Promise<SearchBody> {
  const r = await request(
    srv.port,
    "GET",
    `/api/files?q=${encodeURIComponent(query)}${limit === undefined ? "" : `&limit=${limit}`}`,
  );
  expect(r.status).toBe(200);
  return r.json() as SearchBody;
}

describe("GET /api/files (quick open)", () => {
  it("ranks base-name matches, then contiguous runs, then shorter paths", async () => {
    const { hits } = await search("planets");
    const paths = hits.map((h) => h.path);
    // Exact stem in the base name first (shorter path first), then a base-name prefix, then scattered letters.
    expect(paths.slice(0, 2)).toEqual(["data/planets.xlsx", "rank/deep/a/b/c/planets.xlsx"]);
    const notes = paths.indexOf("rank/planets-notes.md");
    const scattered = paths.indexOf("rank/plain/abc/nets.txt");
    expect(notes).toBeGreaterThan(1);
    expect(scattered).toBeGreaterThan(notes);
    expect(paths).toContain("generated_assets/planets-chart.png");
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("skips node_modules and .git and never lists files behind a link out of the roots", async () => {
    const paths = (await search("planets", 500)).hits.map((h) => h.path);
    expect(paths.some((p) => p.startsWith("node_modules/") || p.startsWith(".git/"))).toBe(false);
    expect(paths.some((p) => p.includes("secret"))).toBe(false);
  });

  it("matches subsequences across folders and ignores case and spaces", async () => {
    const { hits } = await search("RANK nets");
    expect(hits.map((h) => h.path)).toContain("rank/plain/abc/nets.txt");
    expect((await search("zzzqqq")).hits).toEqual([]);
  });

  it("finds the right file among 20,000 and reports truncation at the limit", async () => {
    const exact = await search("item-19999");
    expect(exact.hits[0]?.path).toBe("big/item-19999.txt");
    const many = await search("item", 50);
    expect(many.hits).toHaveLength(50);
    expect(many.truncated).toBe(true);
    expect(many.hits.every((h) => h.path.startsWith("big/item-"))).toBe(true);
  });

  it("follows the file API and the watcher: created, renamed, deleted and external files", async () => {
    const post = (p: string, body: unknown) => request(srv.port, "POST", p, { body });
    await post("/api/fs/create", { path: "fresh/zebra-unique.txt", type: "file" });
    expect((await search("zebraunique")).hits.map((h) => h.path)).toEqual(["fresh/zebra-unique.txt"]);
    await post("/api/fs/rename", { from: "fresh", to: "moved" });
    expect((await search("zebraunique")).hits.map((h) => h.path)).toEqual(["moved/zebra-unique.txt"]);
    await request(srv.port, "DELETE", "/api/fs?path=moved");
    expect((await search("zebraunique")).hits).toEqual([]);

    // A folder renamed in from outside the app: the watcher's addDir makes the index walk it.
    const staged = path.join(ws.dir, "staged");
    await mkdir(path.join(staged, "inner"), { recursive: true });
    await writeFile(path.join(staged, "inner", "okapi-external.csv"), "a\n1\n");
    await rename(staged, path.join(ws.project, "arrived"));
    await expect
      .poll(async () => (await search("okapiexternal")).hits.map((h) => h.path), { timeout: 10_000 })
      .toEqual(["arrived/inner/okapi-external.csv"]);
  });

  it("rejects a bad limit with the allowed range", async () => {
    const r = await request(srv.port, "GET", "/api/files?q=a&limit=0");
    expect(r.status).toBe(400);
    expect((r.json() as { error: { message: string } }).error.message).toContain("1 to 500");
  });
});
