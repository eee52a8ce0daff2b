import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, request, sleep, startServer, type Reply, type Running, type Workspace } from "./helpers.js";

interface ErrorBody {
  error: { code: string; message: string };
}

const UPLOAD_LIMIT = 64 * 1024;
let ws: Workspace;
let srv: Running;

beforeAll(async () => {
  ws = await makeWorkspace();
  await writeFile(path.join(ws.outside, "secret.txt"), "top secret");
  await symlink(ws.outside, path.join(ws.project, "link-out"));
  await symlink(path.join(ws.outside, "secret.txt"), path.join(ws.project, "secret-link.txt"));
  srv = await startServer(ws, { uploadMaxBytes: UPLOAD_LIMIT });
});

afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

const q = (p: string) => encodeURIComponent(p);
const post = (p: string, body: unknown) => request(srv.port, "POST", p, { body });
const del = (p: string) => request(srv.port, "DELETE", `/api/fs?path=${q(p)}`);
const errorOf = (r: Reply) => (r.json() as ErrorBody).error;

/** A raw PUT to /api/upload with `body` bytes (`headers` override content-length etc.). */
function upload(target: string, body: Buffer, opts: { overwrite?: boolean; origin?: string } = {}): Promise<Reply> {
  return request(srv.port, "PUT", `/api/upload?path=${q(target)}${opts.overwrite ? "&overwrite=1" : ""}`, {
    rawBody: body,
    headers: { "content-type": "application/octet-stream", ...(opts.origin ? { origin: opts.origin } : {}) },
  });
}

async function leftovers(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith(".tmp"));
}

describe("POST /api/fs/create", () => {
  it("creates a file with its missing parent folders", async () => {
    const r = await post("/api/fs/create", { path: "new/deep/hello.txt", type: "file" });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ path: "new/deep/hello.txt", type: "file" });
    expect(await readFile(path.join(ws.project, "new/deep/hello.txt"), "utf8")).toBe("");
  });

  it("creates a folder, also in generated_assets", async () => {
    const r = await post("/api/fs/create", { path: "generated_assets/reports", type: "directory" });
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ path: "generated_assets/reports", type: "directory" });
    expect(existsSync(path.join(ws.assets, "reports"))).toBe(true);
  });

  it("answers 409 exists for a file or folder that is already there, without touching it", async () => {
    const r = await post("/api/fs/create", { path: "README.md", type: "file" });
    expect(r.status).toBe(409);
    expect(errorOf(r).code).toBe("exists:file");
    expect(errorOf(r).message).toContain("README.md already exists");
    expect(await readFile(path.join(ws.project, "README.md"), "utf8")).toContain("Sample workspace");
    expect((await post("/api/fs/create", { path: "data", type: "directory" })).status).toBe(409);
  });

  it("rejects a bad body with a message naming the expected shape", async () => {
    const r = await post("/api/fs/create", { path: "x.txt", type: "symlink" });
    expect(r.status).toBe(400);
    expect(errorOf(r).message).toContain('type: "file" | "directory"');
  });

  it("refuses paths that leave the roots: ../, absolute, through a symlink", async () => {
    for (const p of ["../escape.txt", path.join(ws.outside, "abs.txt"), "link-out/evil.txt", "data/../../x.txt"]) {
      const r = await post("/api/fs/create", { path: p, type: "file" });
      expect(r.status, p).toBe(403);
      expect(errorOf(r).code, p).toBe("outside_root:file");
    }
    expect(await readdir(ws.outside)).toEqual(["secret.txt"]);
    expect(existsSync(path.join(ws.dir, "escape.txt"))).toBe(false);
  });

  it("refuses a cross-origin request", async () => {
    const r = await request(srv.port, "POST", "/api/fs/create", {
      body: { path: "cors.txt", type: "file" },
      headers: { origin: "http://evil.example" },
    });
    expect(r.status).toBe(403);
    expect(existsSync(path.join(ws.project, "cors.txt"))).toBe(false);
  });
});

describe("POST /api/fs/rename", () => {
  it("renames a file and moves a folder between the two roots", async () => {
    await post("/api/fs/create", { path: "mv/a.txt", type: "file" });
    let r = await post("/api/fs/rename", { from: "mv/a.txt", to: "mv/b.txt" });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ from: "mv/a.txt", to: "mv/b.txt" });
    expect(existsSync(path.join(ws.project, "mv/a.txt"))).toBe(false);
    expect(existsSync(path.join(ws.project, "mv/b.txt"))).toBe(true);

    r = await post("/api/fs/rename", { from: "mv", to: "generated_assets/moved/mv" });
    expect(r.status).toBe(200);
    expect(existsSync(path.join(ws.assets, "moved/mv/b.txt"))).toBe(true);
    r = await post("/api/fs/rename", { from: "generated_assets/moved/mv", to: "mv-back" });
    expect(r.status).toBe(200);
    expect(existsSync(path.join(ws.project, "mv-back/b.txt"))).toBe(true);
  });

  it("answers 409 when the destination exists and leaves both untouched", async () => {
    const r = await post("/api/fs/rename", { from: "notes", to: "README.md" });
    expect(r.status).toBe(409);
    expect(errorOf(r).code).toBe("exists:file");
    expect(existsSync(path.join(ws.project, "notes"))).toBe(true);
  });

  it("answers 404 for a missing source", async () => {
    const r = await post("/api/fs/rename", { from: "nope.txt", to: "nope2.txt" });
    expect(r.status).toBe(404);
    expect(errorOf(r).code).toBe("not_found:file");
  });

  it("refuses to rename or move a root (403) and to move a folder into itself (400)", async () => {
    for (const from of [".", "generated_assets", ws.project]) {
      const r = await post("/api/fs/rename", { from, to: "root-moved" });
      expect(r.status, from).toBe(403);
      expect(errorOf(r).message, from).toContain("workspace root");
    }
    const r = await post("/api/fs/rename", { from: "notes", to: "notes/inner" });
    expect(r.status).toBe(400);
    expect(existsSync(path.join(ws.project, "notes"))).toBe(true);
  });

  it("refuses a destination outside the roots", async () => {
    const r = await post("/api/fs/rename", { from: "README.md", to: "../README.md" });
    expect(r.status).toBe(403);
    const viaLink = await post("/api/fs/rename", { from: "README.md", to: "link-out/README.md" });
    expect(viaLink.status).toBe(403);
    expect(await readdir(ws.outside)).toEqual(["secret.txt"]);
  });

  it("renames a symlink itself, never its target", async () => {
    const r = await post("/api/fs/rename", { from: "secret-link.txt", to: "renamed-link.txt" });
    expect(r.status).toBe(200);
    expect(await readlink(path.join(ws.project, "renamed-link.txt"))).toBe(path.join(ws.outside, "secret.txt"));
    expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("top secret");
  });
});

describe("DELETE /api/fs", () => {
  it("deletes a file, and a folder recursively", async () => {
    await post("/api/fs/create", { path: "trash/sub/x.txt", type: "file" });
    let r = await del("trash/sub/x.txt");
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ path: "trash/sub/x.txt" });
    await post("/api/fs/create", { path: "trash/sub/y.txt", type: "file" });
    r = await del("trash");
    expect(r.status).toBe(200);
    expect(existsSync(path.join(ws.project, "trash"))).toBe(false);
  });

  it("deletes a symlink that points outside without touching its target", async () => {
    const r = await del("renamed-link.txt");
    expect(r.status).toBe(200);
    expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("answers 404 for a missing path, 403 for a root or an outside path", async () => {
    expect((await del("missing.txt")).status).toBe(404);
    expect((await del(".")).status).toBe(403);
    expect((await del("generated_assets")).status).toBe(403);
    expect((await del("link-out/secret.txt")).status).toBe(403);
    expect((await del("../outside/secret.txt")).status).toBe(403);
    expect(existsSync(path.join(ws.outside, "secret.txt"))).toBe(true);
  });
});

describe("PUT /api/upload", () => {
  it("stores the raw bytes (201) and refuses to overwrite unless asked (409)", async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
    let r = await upload("uploads/blob.bin", bytes);
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ path: "uploads/blob.bin", size: 6 });
    expect(await readFile(path.join(ws.project, "uploads/blob.bin"))).toEqual(bytes);

    r = await upload("uploads/blob.bin", Buffer.from("second"));
    expect(r.status).toBe(409);
    expect(errorOf(r).message).toContain("overwrite=1");
    // Refused before the body was read: the connection closes instead of draining a large body.
    expect(r.headers.connection).toBe("close");
    expect(await readFile(path.join(ws.project, "uploads/blob.bin"))).toEqual(bytes);

    r = await upload("uploads/blob.bin", Buffer.from("second"), { overwrite: true });
    expect(r.status).toBe(201);
    expect(await readFile(path.join(ws.project, "uploads/blob.bin"), "utf8")).toBe("second");
    expect(await leftovers(path.join(ws.project, "uploads"))).toEqual([]);
  });

  it("refuses generated_assets, outside paths and foreign origins (403)", async () => {
    let r = await upload("generated_assets/x.bin", Buffer.from("x"));
    expect(r.status).toBe(403);
    expect(errorOf(r).message).toContain("project_root");
    r = await upload("../x.bin", Buffer.from("x"));
    expect(r.status).toBe(403);
    r = await upload("link-out/x.bin", Buffer.from("x"));
    expect(r.status).toBe(403);
    r = await upload("ok.bin", Buffer.from("x"), { origin: "http://evil.example" });
    expect(r.status).toBe(403);
    expect(await readdir(ws.assets)).not.toContain("x.bin");
    expect(await readdir(ws.outside)).toEqual(["secret.txt"]);
  });

  it("answers 413 above the limit, declared or streamed, and leaves no file", async () => {
    const big = Buffer.alloc(UPLOAD_LIMIT + 1, 1);
    const declared = await upload("uploads/big.bin", big);
    expect(declared.status).toBe(413);
    expect(errorOf(declared).message).toContain("TEXTIDE_UPLOAD_MAX_MB");
    const streamed = await request(srv.port, "PUT", `/api/upload?path=${q("uploads/big.bin")}`, {
      rawBody: big,
      chunked: true,
    });
    expect(streamed.status).toBe(413);
    await sleep(50);
    expect(existsSync(path.join(ws.project, "uploads/big.bin"))).toBe(false);
    expect(await leftovers(path.join(ws.project, "uploads"))).toEqual([]);
  });

  it("leaves nothing behind when the client aborts mid-upload", async () => {
    const dir = path.join(ws.project, "aborted");
    await mkdir(dir);
    const req = httpRequest({
      host: "127.0.0.1",
      port: srv.port,
      method: "PUT",
      path: `/api/upload?path=${q("aborted/part.bin")}`,
      headers: { "content-length": String(UPLOAD_LIMIT) },
    });
    req.on("error", () => undefined);
    req.write(Buffer.alloc(8 * 1024, 7));
    // The temp file exists while the body streams in ...
    await expect.poll(() => leftovers(dir), { timeout: 5_000 }).toHaveLength(1);
    req.destroy();
    // ... and is removed once the client is gone.
    await expect.poll(() => leftovers(dir), { timeout: 5_000 }).toEqual([]);
    expect(existsSync(path.join(dir, "part.bin"))).toBe(false);
  });
});

describe("GET /api/raw?download=1", () => {
  it("adds an attachment disposition with an RFC 5987 file name", async () => {
    await writeFile(path.join(ws.project, "Überblick (v2).txt"), "x");
    const r = await request(srv.port, "GET", `/api/raw?path=${q("Überblick (v2).txt")}&download=1`);
    expect(r.status).toBe(200);
    expect(r.headers["content-disposition"]).toBe(
      `attachment; filename="_berblick (v2).txt"; filename*=UTF-8''%C3%9Cberblick%20%28v2%29.txt`,
    );
    const plain = await request(srv.port, "GET", `/api/raw?path=README.md`);
    expect(plain.headers["content-disposition"]).toBeUndefined();
  });
});
