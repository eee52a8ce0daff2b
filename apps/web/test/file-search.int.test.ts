import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ROOT, type FileSearchHit } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileIndex, type FileIndex } from "../server/fs/file-index.js";
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

    // A folder renamed in from outside the app: the watcher reports its files as adds.
    const staged = path.join(ws.dir, "staged");
    await mkdir(path.join(staged, "inner"), { recursive: true });
    await writeFile(path.join(staged, "inner", "okapi-external.csv"), "a\n1\n");
    await rename(staged, path.join(ws.project, "arrived"));
    await expect
      .poll(async () => (await search("okapiexternal")).hits.map((h) => h.path), { timeout: 10_000 })
      .toEqual(["arrived/inner/okapi-external.csv"]);

    // mkdir, then a file renamed in at once (the exec runner's pattern): chokidar can miss the file, and
    // the watcher's second listing of the new folder reports it.
    const fresh = path.join(ws.project, "just-made");
    await mkdir(fresh);
    const tmp = path.join(ws.dir, "ibex-renamed.txt");
    await writeFile(tmp, "x");
    await rename(tmp, path.join(fresh, "ibex-renamed.txt"));
    await expect
      .poll(async () => (await search("ibexrenamed")).hits.map((h) => h.path), { timeout: 10_000 })
      .toEqual(["just-made/ibex-renamed.txt"]);
  });

  it("returns the same top hits for a query that matches every file", async () => {
    const all = await search("", 500);
    expect(all.truncated).toBe(true);
    const first = await search("", 20);
    expect(first.hits).toEqual(all.hits.slice(0, 20));
  });

  it("rejects a bad limit with the allowed range", async () => {
    const r = await request(srv.port, "GET", "/api/files?q=a&limit=0");
    expect(r.status).toBe(400);
    expect((r.json() as { error: { message: string } }).error.message).toContain("1 to 500");
  });
});

describe("file index", () => {
  let index: FileIndex;

  beforeAll(async () => {
    const roots = await resolveRoots([
      { name: ROOT.project, path: ws.outside, writable: true },
      { name: ROOT.assets, path: ws.assets, writable: true },
    ]);
    index = createFileIndex(new PathPolicy(roots));
    await index.ready;
  });

  const paths = (q: string) => index.search(q, 500).hits.map((h) => h.path);

  it("removes one file of a folder on unlink and a whole folder on unlinkDir", () => {
    for (const f of ["lynx/a.txt", "lynx/b.txt", "lynx/sub/c.txt"]) index.addFile(f);
    index.apply({ root: ROOT.project, path: "lynx/a.txt", kind: "unlink" });
    expect(paths("lynx").sort()).toEqual(["lynx/b.txt", "lynx/sub/c.txt"]);
    index.apply({ root: ROOT.project, path: "lynx", kind: "unlinkDir" });
    expect(paths("lynx")).toEqual([]);
  });

  it("treats an unlink as one file, not a folder (no scan of every path per deleted file)", () => {
    index.addFile("gnu");
    index.addFile("gnu/kept.txt");
    index.apply({ root: ROOT.project, path: "gnu", kind: "unlink" });
    expect(paths("gnu")).toEqual(["gnu/kept.txt"]);
    index.remove("gnu");
    expect(paths("gnu")).toEqual([]);
  });

  it("follows the unlinks of a 20,000-file folder deleted at once", () => {
    const names = Array.from({ length: BIG }, (_, i) => `tapir/f-${i}.txt`);
    for (const p of names) index.apply({ root: ROOT.project, path: p, kind: "add" });
    index.addFile("tapir-sibling.txt");
    expect(index.search("tapir", 10).truncated).toBe(true);
    for (const p of names) index.apply({ root: ROOT.project, path: p, kind: "unlink" });
    index.apply({ root: ROOT.project, path: "tapir", kind: "unlinkDir" });
    expect(paths("tapir")).toEqual(["tapir-sibling.txt"]);
  });

  it("keeps the best hits in order whatever the limit", () => {
    for (let i = 0; i < 300; i++) index.addFile(`okra/${"d/".repeat(i % 7)}okra-${i % 13}.md`);
    const all = index.search("okra", 500).hits;
    const sorted = [...all].sort(
      (a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1),
    );
    expect(all).toEqual(sorted);
    for (const limit of [1, 7, 50]) {
      const r = index.search("okra", limit);
      expect(r.hits).toEqual(all.slice(0, limit));
      expect(r.truncated).toBe(true);
    }
  });
});
