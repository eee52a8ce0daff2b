import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";

interface Entry {
  name: string;
  path: string;
  type: string;
  targetType?: string;
  size?: number;
  mtime?: string;
  children?: Entry[];
}
interface ErrorBody {
  error: { code: string; message: string; currentEtag?: string | null };
}

const TOKEN = "s3cret-token";
let ws: Workspace;
let srv: Running;

beforeAll(async () => {
  ws = await makeWorkspace();
  await mkdir(path.join(ws.project, ".git"));
  await writeFile(path.join(ws.project, ".git", "HEAD"), "ref: x\n");
  await mkdir(path.join(ws.project, "node_modules", "pkg"), { recursive: true });
  await writeFile(path.join(ws.outside, "secret.txt"), "top secret");
  await symlink(ws.outside, path.join(ws.project, "link-out"));
  await symlink(path.join(ws.project, "notes"), path.join(ws.project, "link-in"));
  await writeFile(
    path.join(ws.assets, "chart.svg"),
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
  );
  srv = await startServer(ws, { ideToken: TOKEN });
});

afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

const get = (p: string, headers?: Record<string, string>) => request(srv.port, "GET", p, { headers });
const q = (p: string) => encodeURIComponent(p);

describe("GET /api/health and /api/tree", () => {
  it("reports health with both roots", async () => {
    const r = await get("/api/health");
    expect(r.status).toBe(200);
    const body = r.json() as { ok: boolean; roots: { name: string }[] };
    expect(body.ok).toBe(true);
    expect(body.roots.map((x) => x.name)).toEqual(["project_root", "generated_assets"]);
  });

  it("lists the project root with the assets root, skipping .git and node_modules", async () => {
    const r = await get("/api/tree");
    expect(r.status).toBe(200);
    const { entries } = r.json() as { entries: Entry[] };
    const names = entries.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(["data", "notes", "README.md", "generated_assets"]));
    expect(names).not.toContain(".git");
    expect(names).not.toContain("node_modules");
    const readme = entries.find((e) => e.name === "README.md")!;
    expect(readme).toMatchObject({ path: "README.md", type: "file" });
    expect(readme.size).toBeGreaterThan(0);
    expect(Date.parse(readme.mtime!)).not.toBeNaN();
  });

  it("never describes a symlink that leaves the roots, but describes one inside", async () => {
    const { entries } = (await get("/api/tree")).json() as { entries: Entry[] };
    const out = entries.find((e) => e.name === "link-out")!;
    expect(out).toEqual({ name: "link-out", path: "link-out", type: "symlink" });
    const inside = entries.find((e) => e.name === "link-in")!;
    expect(inside).toMatchObject({ type: "symlink", targetType: "directory" });
  });

  it("walks nested directories to the requested depth and addresses generated_assets", async () => {
    const deep = (await get("/api/tree?path=.&depth=2")).json() as { entries: Entry[] };
    const data = deep.entries.find((e) => e.name === "data")!;
    expect(data.children?.map((c) => c.path)).toContain("data/planets.xlsx");
    const assets = (await get("/api/tree?path=generated_assets")).json() as { path: string; entries: Entry[] };
    expect(assets.path).toBe("generated_assets");
    expect(assets.entries.map((e) => e.path)).toEqual(["generated_assets/chart.svg"]);
  });

  it("rejects listing outside the roots and bad depths", async () => {
    expect((await get(`/api/tree?path=${q("../")}`)).status).toBe(403);
    expect((await get(`/api/tree?path=${q("link-out")}`)).status).toBe(403);
    expect((await get("/api/tree?depth=0")).status).toBe(400);
    expect((await get("/api/tree?path=missing-dir")).status).toBe(404);
  });
});

describe("query parameters (read with the routes' shared schemas)", () => {
  const cases: [string, string][] = [
    ["/api/tree?depth=9", "`depth` must be a whole number from 1 to 8"],
    ["/api/tree?depth=two", "`depth` must be a whole number from 1 to 8"],
    ["/api/files?limit=0", "`limit` must be a whole number from 1 to 500"],
    [`/api/files?q=${"x".repeat(257)}`, "`q` is limited to 256 characters"],
    ["/api/table?offset=0", "Missing `path` query parameter"],
    ["/api/table?path=data/observatories.csv&offset=-1", "`offset` must be a whole number of 0 or more"],
    ["/api/table?path=data/observatories.csv&sort=1&dir=up", '`dir` is "asc" or "desc"'],
    ["/api/file", "Missing `path` query parameter"],
    ["/api/raw?path=", "Missing `path` query parameter"],
  ];
  for (const [url, message] of cases) {
    it(`${url.slice(0, 60)} → 400 naming the parameter`, async () => {
      const r = await get(url);
      expect(r.status).toBe(400);
      const body = r.json() as { error: { code: string; message: string } };
      expect(body.error.code).toMatch(/^bad_request:/);
      expect(body.error.message).toContain(message);
    });
  }

  it("fills in the defaults: depth 1, the first page, file order", async () => {
    const tree = (await get("/api/tree?path=")).json() as { path: string; entries: { path: string }[] };
    expect(tree.path).toBe(".");
    expect(tree.entries.every((e) => !e.path.includes("/") || e.path.split("/").length === 1)).toBe(true);
    const page = (await get("/api/table?path=data/observatories.csv&sort=")).json() as {
      offset: number;
      rows: unknown[];
    };
    expect(page.offset).toBe(0);
    expect(page.rows.length).toBeGreaterThan(0);
  });
});

describe("GET /api/file and /api/raw", () => {
  it("returns text content with etag, encoding, size and mime", async () => {
    const r = await get("/api/file?path=notes/ideas.md");
    expect(r.status).toBe(200);
    const body = r.json() as Record<string, unknown>;
    const onDisk = await readFile(path.join(ws.project, "notes", "ideas.md"), "utf8");
    expect(body).toMatchObject({ path: "notes/ideas.md", content: onDisk, encoding: "utf-8", mime: "text/markdown" });
    expect(body.size).toBe(Buffer.byteLength(onDisk));
    expect(body.etag).toMatch(/^".+"$/);
  });

  it("refuses binary files with 415 and points to /api/raw", async () => {
    const r = await get("/api/file?path=images/solar-system.png");
    expect(r.status).toBe(415);
    const { error } = r.json() as ErrorBody;
    expect(error.code).toBe("unsupported_media_type:file");
    expect(error.message).toContain("/api/raw");
  });

  it("refuses files over 5 MiB with 413", async () => {
    await writeFile(path.join(ws.project, "huge.txt"), Buffer.alloc(5 * 1024 * 1024 + 1, "a"));
    const r = await get("/api/file?path=huge.txt");
    expect(r.status).toBe(413);
    expect((r.json() as ErrorBody).error.code).toBe("too_large:file");
  });

  it("serves raw bytes with MIME, nosniff, sandbox CSP, no-store and Content-Length", async () => {
    const r = await get("/api/raw?path=images/solar-system.png");
    expect(r.status).toBe(200);
    const png = await readFile(path.join(ws.project, "images", "solar-system.png"));
    expect(r.body.equals(png)).toBe(true);
    expect(r.headers["content-type"]).toBe("image/png");
    expect(r.headers["content-length"]).toBe(String(png.length));
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["content-security-policy"]).toBe("sandbox");
    expect(r.headers["cache-control"]).toBe("no-store");
  });

  it("serves SVG with a script-blocking CSP", async () => {
    const r = await get("/api/raw?path=generated_assets/chart.svg");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("image/svg+xml");
    expect(r.headers["content-security-policy"]).toBe("sandbox; default-src 'none'; style-src 'unsafe-inline'");
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("returns JSON errors for missing paths, directories and unknown routes", async () => {
    const missing = await get("/api/file?path=nope.txt");
    expect(missing.status).toBe(404);
    expect((missing.json() as ErrorBody).error.code).toBe("not_found:file");
    expect((await get("/api/file")).status).toBe(400);
    expect((await get("/api/raw?path=data")).status).toBe(400);
    expect((await get("/api/nothing")).status).toBe(404);
    expect((await request(srv.port, "DELETE", "/api/file?path=README.md")).status).toBe(405);
  });
});

describe("PUT /api/file", () => {
  it("saves with the current etag and returns a new one", async () => {
    const read = (await get("/api/file?path=notes/ideas.md")).json() as { etag: string };
    const r = await request(srv.port, "PUT", "/api/file?path=notes/ideas.md", {
      body: { content: "# new ideas\n", expectedEtag: read.etag },
    });
    expect(r.status).toBe(200);
    const saved = r.json() as { etag: string; path: string };
    expect(saved.path).toBe("notes/ideas.md");
    expect(saved.etag).not.toBe(read.etag);
    expect(await readFile(path.join(ws.project, "notes", "ideas.md"), "utf8")).toBe("# new ideas\n");
    const again = (await get("/api/file?path=notes/ideas.md")).json() as { etag: string };
    expect(again.etag).toBe(saved.etag);
  });

  it("answers 409 with the current etag when the file changed, and writes nothing", async () => {
    const file = path.join(ws.project, "notes", "observing-log.md");
    const read = (await get("/api/file?path=notes/observing-log.md")).json() as { etag: string };
    await writeFile(file, "changed elsewhere\n");
    const r = await request(srv.port, "PUT", "/api/file?path=notes/observing-log.md", {
      body: { content: "mine\n", expectedEtag: read.etag },
    });
    expect(r.status).toBe(409);
    const { error } = r.json() as ErrorBody;
    expect(error.code).toBe("conflict:file");
    expect(error.currentEtag).toMatch(/^".+"$/);
    expect(error.currentEtag).not.toBe(read.etag);
    expect(await readFile(file, "utf8")).toBe("changed elsewhere\n");
  });

  it("creates new files (and their directories) in generated_assets", async () => {
    const r = await request(srv.port, "PUT", `/api/file?path=${q("generated_assets/out/new.txt")}`, {
      body: { content: "hello" },
    });
    expect(r.status).toBe(201);
    expect(await readFile(path.join(ws.assets, "out", "new.txt"), "utf8")).toBe("hello");
  });

  it.each([
    ["../escape.txt", () => path.join(ws.dir, "escape.txt")],
    ["absolute path outside", () => path.join(ws.outside, "abs.txt")],
    ["link-out/new.txt", () => path.join(ws.outside, "new.txt")],
    ["generated_assets/../../escape2.txt", () => path.join(ws.dir, "escape2.txt")],
  ])("rejects the escape %s with 403 and writes nothing", async (input, written) => {
    const p = input === "absolute path outside" ? written() : input;
    const r = await request(srv.port, "PUT", `/api/file?path=${q(p)}`, { body: { content: "pwned" } });
    expect(r.status).toBe(403);
    expect((r.json() as ErrorBody).error.code).toBe("outside_root:file");
    expect(existsSync(written())).toBe(false);
  });

  it("does not read through a symlink that leaves the roots", async () => {
    for (const route of ["/api/file", "/api/raw"]) {
      const r = await get(`${route}?path=${q("link-out/secret.txt")}`);
      expect(r.status).toBe(403);
      expect(r.body.toString()).not.toContain("top secret");
    }
  });

  it("refuses a FIFO at once instead of waiting for a writer", async () => {
    execFileSync("mkfifo", [path.join(ws.project, "pipe")]);
    for (const route of ["/api/file", "/api/raw"]) {
      const r = await get(`${route}?path=pipe`);
      expect(r.status).toBe(403);
      expect((r.json() as ErrorBody).error.code).toBe("denied:file");
    }
  });

  it("rejects bad bodies and oversized content", async () => {
    const bad = await request(srv.port, "PUT", "/api/file?path=x.txt", { body: { text: 1 } });
    expect(bad.status).toBe(400);
    const huge = await request(srv.port, "PUT", "/api/file?path=x.txt", {
      body: { content: "a".repeat(5 * 1024 * 1024 + 1) },
    });
    expect(huge.status).toBe(413);
    expect(existsSync(path.join(ws.project, "x.txt"))).toBe(false);
  });
});

describe("origin, host and token checks", () => {
  it("rejects a PUT from a foreign Origin with 403 and writes nothing", async () => {
    const file = path.join(ws.project, "README.md");
    const before = await stat(file);
    const r = await request(srv.port, "PUT", "/api/file?path=README.md", {
      body: { content: "pwned" },
      headers: { origin: "http://evil.example" },
    });
    expect(r.status).toBe(403);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  });

  it("accepts a PUT from the app's own origin", async () => {
    const r = await request(srv.port, "PUT", "/api/file?path=generated_assets/own.txt", {
      body: { content: "ok" },
      headers: { origin: srv.base },
    });
    expect(r.status).toBe(201);
  });

  it("rejects a foreign Host header (DNS rebinding) with 403", async () => {
    const r = await get("/api/health", { host: `evil.example:${srv.port}` });
    expect(r.status).toBe(403);
    expect((await get("/api/health", { host: `localhost:${srv.port}` })).status).toBe(200);
  });

  it("refuses a socket.io handshake from a foreign Origin", async () => {
    await expect(connectClient(srv.base, { origin: "http://evil.example" })).rejects.toThrow();
  });
});

describe("POST /api/open-file", () => {
  let a: Socket;
  let b: Socket;
  beforeAll(async () => {
    a = await connectClient(srv.base);
    b = await connectClient(srv.base);
  });
  afterAll(() => {
    a?.close();
    b?.close();
  });

  it("emits file/open to every connected client and returns the count", async () => {
    const received = Promise.all(
      [a, b].map((s) => new Promise<unknown>((resolve) => s.once("file/open", (e: unknown) => resolve(e)))),
    );
    const r = await request(srv.port, "POST", "/api/open-file", {
      body: { path: "data/planets.xlsx", line: 3 },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ path: "data/planets.xlsx", clients: 2 });
    expect(await received).toEqual([
      { path: "data/planets.xlsx", line: 3 },
      { path: "data/planets.xlsx", line: 3 },
    ]);
  });

  it("requires the bearer token", async () => {
    const missing = await request(srv.port, "POST", "/api/open-file", { body: { path: "README.md" } });
    expect(missing.status).toBe(401);
    const wrong = await request(srv.port, "POST", "/api/open-file", {
      body: { path: "README.md" },
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).toContain("Bearer");
  });

  it("validates the path through the policy", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(
      (await request(srv.port, "POST", "/api/open-file", { body: { path: "nope.md" }, headers: auth })).status,
    ).toBe(404);
    expect((await request(srv.port, "POST", "/api/open-file", { body: { path: "../x" }, headers: auth })).status).toBe(
      403,
    );
    expect((await request(srv.port, "POST", "/api/open-file", { body: { line: 1 }, headers: auth })).status).toBe(400);
  });
});
