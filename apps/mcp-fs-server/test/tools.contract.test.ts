import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CORRELATION_META_KEY,
  editFileOutput,
  getFileInfoOutput,
  listDirectoryOutput,
  readFileOutput,
  searchFilesOutput,
  TOOL,
  writeFileOutput,
} from "@textide/shared";
import { connectInMemory, errorCode, textOf, type Connected } from "./helpers/connect.js";

let c: Connected;

beforeAll(async () => {
  c = await connectInMemory({
    files: {
      "deep/a/b/c/planets-notes.md": "# notes\nJupiter is the largest planet.\n",
      "node_modules/pkg/planets.js": "ignored",
      ".git/planets": "ignored",
      "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65]),
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld", "utf16le")]),
      "blob.bin": Buffer.from([0, 1, 2, 3, 255, 0, 7]),
      "dir-with-1200/": null,
    },
  });
  await Promise.all(
    Array.from({ length: 1200 }, (_, i) => writeFile(path.join(c.ws.project, "dir-with-1200", `f${i}.txt`), "x")),
  );
});
afterAll(() => c.close());

describe("tools/list", () => {
  it("lists every tool with a wire-safe name, schemas and honest annotations", async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(Object.values(TOOL).sort());
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.annotations?.openWorldHint).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName[TOOL.readFile]).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName[TOOL.writeFile]).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName[TOOL.moveFile]).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName[TOOL.createDirectory]).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe("fs_search_files", () => {
  it("finds a nested file by its bare name (the reference server's glob search does not)", async () => {
    const r = await c.call(TOOL.searchFiles, { query: "planets.xlsx" });
    const out = searchFilesOutput.parse(r.structuredContent);
    expect(out.matches.map((m) => m.path)).toEqual(["data/planets.xlsx"]);
    expect(textOf(r)).toContain("data/planets.xlsx");
  });

  it("matches names case-insensitively as a substring and skips .git and node_modules", async () => {
    const r = await c.call(TOOL.searchFiles, { query: "PLANETS" });
    const paths = searchFilesOutput.parse(r.structuredContent).matches.map((m) => m.path);
    expect(paths).toContain("data/planets.xlsx");
    expect(paths).toContain("deep/a/b/c/planets-notes.md");
    expect(paths.some((p) => p.includes("node_modules") || p.includes(".git"))).toBe(false);
  });

  it("includes ignored folders on request", async () => {
    const r = await c.call(TOOL.searchFiles, { query: "planets", includeIgnored: true });
    const paths = searchFilesOutput.parse(r.structuredContent).matches.map((m) => m.path);
    expect(paths).toContain("node_modules/pkg/planets.js");
  });

  it("supports globs on names and on whole paths", async () => {
    const byName = searchFilesOutput.parse((await c.call(TOOL.searchFiles, { query: "*.tsv" })).structuredContent);
    expect(byName.matches.map((m) => m.path)).toEqual(["data/moons/major-moons.tsv"]);
    const byPath = searchFilesOutput.parse(
      (await c.call(TOOL.searchFiles, { query: "reports/**/*.csv" })).structuredContent,
    );
    expect(byPath.matches.map((m) => m.path)).toEqual(["reports/2024/exoplanet-discoveries.csv"]);
  });

  it("searches content and returns matching lines", async () => {
    const r = await c.call(TOOL.searchFiles, { content: "largest planet" });
    const out = searchFilesOutput.parse(r.structuredContent);
    const hit = out.matches.find((m) => m.path === "deep/a/b/c/planets-notes.md");
    expect(hit?.lines).toEqual([{ line: 2, text: "Jupiter is the largest planet." }]);
  });

  it("caps results and says so", async () => {
    const out = searchFilesOutput.parse((await c.call(TOOL.searchFiles, { query: "f1", limit: 5 })).structuredContent);
    expect(out.matches).toHaveLength(5);
    expect(out.truncated).toBe(true);
  });

  it("scopes to the assets root", async () => {
    await writeFile(path.join(c.ws.assets, "planets-chart.png"), "png");
    const all = searchFilesOutput.parse((await c.call(TOOL.searchFiles, { query: "planets-chart" })).structuredContent);
    expect(all.matches).toEqual([
      { path: "generated_assets/planets-chart.png", root: "generated_assets", type: "file" },
    ]);
    const project = searchFilesOutput.parse(
      (await c.call(TOOL.searchFiles, { query: "planets-chart", root: "project_root" })).structuredContent,
    );
    expect(project.matches).toEqual([]);
  });

  it("rejects a call with neither query nor content", async () => {
    const r = await c.call(TOOL.searchFiles, {});
    expect(r.isError).toBe(true);
  });
});

describe("fs_list_directory", () => {
  it("lists entries with type, size and mtime", async () => {
    const out = listDirectoryOutput.parse((await c.call(TOOL.listDirectory, { path: "data" })).structuredContent);
    const xlsx = out.entries.find((e) => e.name === "planets.xlsx");
    expect(xlsx).toMatchObject({ path: "data/planets.xlsx", type: "file" });
    expect(xlsx!.size).toBeGreaterThan(1000);
    expect(out.entries.find((e) => e.name === "moons")?.type).toBe("directory");
  });

  it("caps a 1,200-entry directory at the limit and reports truncation", async () => {
    const out = listDirectoryOutput.parse(
      (await c.call(TOOL.listDirectory, { path: "dir-with-1200" })).structuredContent,
    );
    expect(out.entries).toHaveLength(1000);
    expect(out.truncated).toBe(true);
  });

  it("recurses with depth", async () => {
    const out = listDirectoryOutput.parse(
      (await c.call(TOOL.listDirectory, { path: "deep", depth: 4 })).structuredContent,
    );
    expect(out.entries.map((e) => e.path)).toEqual(["deep/a", "deep/a/b", "deep/a/b/c", "deep/a/b/c/planets-notes.md"]);
  });

  it("lists the assets root by name", async () => {
    const out = listDirectoryOutput.parse(
      (await c.call(TOOL.listDirectory, { path: "generated_assets" })).structuredContent,
    );
    expect(out.root).toBe("generated_assets");
  });

  it("says a file is not a directory", async () => {
    expect(errorCode(await c.call(TOOL.listDirectory, { path: "README.md" }))).toBe("not_a_directory");
  });
});

describe("fs_read_file", () => {
  it("reads UTF-8 text with an etag", async () => {
    const r = await c.call(TOOL.readFile, { path: "scripts/orbit.js" });
    const out = readFileOutput.parse(r.structuredContent);
    expect(out).toMatchObject({ encoding: "utf-8", truncated: false, mime: "text/javascript" });
    expect(textOf(r)).toBe(await readFile(path.join(c.ws.project, "scripts/orbit.js"), "utf8"));
    expect(out.etag).toMatch(/^".+"$/);
  });

  it("never repeats the file body in structuredContent", async () => {
    const r = await c.call(TOOL.readFile, { path: "README.md" });
    expect(JSON.stringify(r.structuredContent).length).toBeLessThan(400);
  });

  it("detects legacy and UTF-16 encodings", async () => {
    const latin = await c.call(TOOL.readFile, { path: "latin1.txt" });
    expect(textOf(latin)).toBe("café naïve");
    const utf16 = await c.call(TOOL.readFile, { path: "utf16.txt" });
    expect(readFileOutput.parse(utf16.structuredContent).encoding).toBe("utf-16le");
    expect(textOf(utf16)).toBe("héllo wörld");
  });

  it("returns images as image content", async () => {
    const r = await c.call(TOOL.readFile, { path: "images/solar-system.png" });
    const img = r.content.find((b) => b.type === "image");
    expect(img && img.type === "image" && img.mimeType).toBe("image/png");
    const bytes = Buffer.from(img && img.type === "image" ? img.data : "", "base64");
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
  });

  it("returns other binary files as a base64 resource", async () => {
    const r = await c.call(TOOL.readFile, { path: "data/planets.xlsx" });
    const out = readFileOutput.parse(r.structuredContent);
    expect(out.encoding).toBe("base64");
    const res = r.content.find((b) => b.type === "resource");
    const blob = res && res.type === "resource" && "blob" in res.resource ? res.resource.blob : "";
    expect(Buffer.from(blob, "base64").subarray(0, 2).toString()).toBe("PK");
    const bin = readFileOutput.parse((await c.call(TOOL.readFile, { path: "blob.bin" })).structuredContent);
    expect(bin.encoding).toBe("base64");
  });

  it("pages a large text file without splitting multi-byte characters", async () => {
    const line = "ünïcødé ✓ 🚀 line\n";
    const body = line.repeat(40_000); // ~1 MB with 2-, 3- and 4-byte characters
    await writeFile(path.join(c.ws.project, "big.txt"), body);
    let offset = 0;
    let text = "";
    let pages = 0;
    for (;;) {
      const r = await c.call(TOOL.readFile, { path: "big.txt", offset, maxBytes: 100_000 });
      const out = readFileOutput.parse(r.structuredContent);
      text += textOf(r);
      pages++;
      if (!out.truncated) break;
      expect(out.nextOffset).toBeGreaterThan(offset);
      offset = out.nextOffset!;
    }
    expect(pages).toBeGreaterThan(5);
    expect(text).toBe(body);
  });

  it("explains what to do with a directory or a missing file", async () => {
    const dir = await c.call(TOOL.readFile, { path: "data" });
    expect(errorCode(dir)).toBe("is_directory");
    expect(textOf(dir)).toContain("fs_list_directory");
    const missing = await c.call(TOOL.readFile, { path: "data/nope.csv" });
    expect(errorCode(missing)).toBe("not_found");
    expect(textOf(missing)).toContain("fs_search_files");
  });

  it("refuses paths outside the roots with an actionable message", async () => {
    for (const p of ["../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", "data/\0x"]) {
      const r = await c.call(TOOL.readFile, { path: p });
      expect(r.isError, p).toBe(true);
      expect(["outside_root", "invalid_path"]).toContain(errorCode(r));
    }
    expect(textOf(await c.call(TOOL.readFile, { path: "/etc/passwd" }))).toContain("Allowed:");
  });

  it("rejects out-of-range arguments as a tool error, not a crash", async () => {
    const r = await c.call(TOOL.readFile, { path: "README.md", maxBytes: 10 * 1024 * 1024 });
    expect(r.isError).toBe(true);
    const ok = await c.call(TOOL.readFile, { path: "README.md" });
    expect(ok.isError).toBeFalsy();
  });
});

describe("fs_write_file", () => {
  it("creates, overwrites and reports etags", async () => {
    const created = writeFileOutput.parse(
      (await c.call(TOOL.writeFile, { path: "generated_assets/out/a.txt", content: "one" })).structuredContent,
    );
    expect(created).toMatchObject({
      root: "generated_assets",
      path: "generated_assets/out/a.txt",
      bytes: 3,
      created: true,
    });
    expect(await readFile(path.join(c.ws.assets, "out/a.txt"), "utf8")).toBe("one");
    const again = writeFileOutput.parse(
      (await c.call(TOOL.writeFile, { path: "generated_assets/out/a.txt", content: "two!" })).structuredContent,
    );
    expect(again.created).toBe(false);
    expect(again.etag).not.toBe(created.etag);
  });

  it("refuses to replace in create mode", async () => {
    await c.call(TOOL.writeFile, { path: "create-only.txt", content: "x" });
    const r = await c.call(TOOL.writeFile, { path: "create-only.txt", content: "y", mode: "create" });
    expect(errorCode(r)).toBe("exists");
    expect(await readFile(path.join(c.ws.project, "create-only.txt"), "utf8")).toBe("x");
  });

  it("detects a conflicting change through expectedEtag and loses nothing", async () => {
    const first = writeFileOutput.parse(
      (await c.call(TOOL.writeFile, { path: "conflict.txt", content: "v1" })).structuredContent,
    );
    await writeFile(path.join(c.ws.project, "conflict.txt"), "changed by someone else");
    const r = await c.call(TOOL.writeFile, { path: "conflict.txt", content: "v2", expectedEtag: first.etag });
    expect(errorCode(r)).toBe("conflict");
    expect(await readFile(path.join(c.ws.project, "conflict.txt"), "utf8")).toBe("changed by someone else");
    const read = readFileOutput.parse((await c.call(TOOL.readFile, { path: "conflict.txt" })).structuredContent);
    const ok = await c.call(TOOL.writeFile, { path: "conflict.txt", content: "v2", expectedEtag: read.etag });
    expect(ok.isError).toBeFalsy();
  });

  it("writes binary from base64", async () => {
    await c.call(TOOL.writeFile, {
      path: "generated_assets/b.bin",
      content: Buffer.from([0, 255, 1]).toString("base64"),
      encoding: "base64",
    });
    expect([...(await readFile(path.join(c.ws.assets, "b.bin")))]).toEqual([0, 255, 1]);
  });

  it("never writes through a symlink at the target", async () => {
    const outside = path.join(c.ws.base, "outside.txt");
    await writeFile(outside, "safe");
    await symlink(outside, path.join(c.ws.project, "link.txt"));
    const r = await c.call(TOOL.writeFile, { path: "link.txt", content: "pwned" });
    expect(r.isError).toBe(true);
    expect(await readFile(outside, "utf8")).toBe("safe");
  });

  it("leaves no temp files behind", async () => {
    await c.call(TOOL.writeFile, { path: "generated_assets/clean/x.json", content: "{}" });
    const list = listDirectoryOutput.parse(
      (await c.call(TOOL.listDirectory, { path: "generated_assets/clean" })).structuredContent,
    );
    expect(list.entries.map((e) => e.name)).toEqual(["x.json"]);
  });
});

describe("fs_edit_file", () => {
  beforeAll(async () => {
    await writeFile(path.join(c.ws.project, "edit.md"), "alpha\nbeta\ngamma\nbeta\n");
  });

  it("previews a diff on dry run without writing", async () => {
    const r = await c.call(TOOL.editFile, {
      path: "edit.md",
      edits: [{ oldText: "alpha", newText: "ALPHA" }],
      dryRun: true,
    });
    const out = editFileOutput.parse(r.structuredContent);
    expect(out.applied).toBe(false);
    expect(out.diff).toContain("-alpha");
    expect(out.diff).toContain("+ALPHA");
    expect(await readFile(path.join(c.ws.project, "edit.md"), "utf8")).toContain("alpha");
  });

  it("refuses an ambiguous match and applies replaceAll", async () => {
    expect(
      errorCode(await c.call(TOOL.editFile, { path: "edit.md", edits: [{ oldText: "beta", newText: "B" }] })),
    ).toBe("ambiguous_match");
    const r = await c.call(TOOL.editFile, {
      path: "edit.md",
      edits: [
        { oldText: "beta", newText: "B", replaceAll: true },
        { oldText: "gamma", newText: "G" },
      ],
    });
    expect(editFileOutput.parse(r.structuredContent).replacements).toBe(3);
    expect(await readFile(path.join(c.ws.project, "edit.md"), "utf8")).toBe("alpha\nB\nG\nB\n");
  });

  it("is all or nothing when one edit does not match", async () => {
    const before = await readFile(path.join(c.ws.project, "edit.md"), "utf8");
    const r = await c.call(TOOL.editFile, {
      path: "edit.md",
      edits: [
        { oldText: "alpha", newText: "x" },
        { oldText: "nope", newText: "y" },
      ],
    });
    expect(errorCode(r)).toBe("no_match");
    expect(textOf(r)).toContain("Edit 2");
    expect(await readFile(path.join(c.ws.project, "edit.md"), "utf8")).toBe(before);
  });
});

describe("fs_get_file_info, fs_create_directory, fs_move_file", () => {
  it("reports metadata without reading", async () => {
    const out = getFileInfoOutput.parse(
      (await c.call(TOOL.getFileInfo, { path: "data/planets.xlsx" })).structuredContent,
    );
    expect(out).toMatchObject({
      type: "file",
      mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      isSymlink: false,
    });
    expect(out.size).toBe((await stat(path.join(c.ws.project, "data/planets.xlsx"))).size);
  });

  it("answers not_found for a missing path in every read tool", async () => {
    expect(errorCode(await c.call(TOOL.getFileInfo, { path: "nope.txt" }))).toBe("not_found");
    expect(errorCode(await c.call(TOOL.listDirectory, { path: "no-such-dir" }))).toBe("not_found");
    expect(errorCode(await c.call(TOOL.searchFiles, { query: "x", path: "no-such-dir" }))).toBe("not_found");
  });

  it("creates directories idempotently", async () => {
    const a = await c.call(TOOL.createDirectory, { path: "new/nested/dir" });
    expect(a.structuredContent).toMatchObject({ created: true, path: "new/nested/dir" });
    const b = await c.call(TOOL.createDirectory, { path: "new/nested/dir" });
    expect(b.structuredContent).toMatchObject({ created: false });
    expect(errorCode(await c.call(TOOL.createDirectory, { path: "README.md" }))).toBe("exists");
  });

  it("moves between roots and refuses to clobber", async () => {
    await c.call(TOOL.writeFile, { path: "move-me.txt", content: "m" });
    await c.call(TOOL.writeFile, { path: "generated_assets/taken.txt", content: "t" });
    expect(
      errorCode(await c.call(TOOL.moveFile, { source: "move-me.txt", destination: "generated_assets/taken.txt" })),
    ).toBe("exists");
    const r = await c.call(TOOL.moveFile, { source: "move-me.txt", destination: "generated_assets/moved/m.txt" });
    expect(r.structuredContent).toMatchObject({ source: "move-me.txt", destination: "generated_assets/moved/m.txt" });
    expect(await readFile(path.join(c.ws.assets, "moved/m.txt"), "utf8")).toBe("m");
    await mkdir(path.join(c.ws.project, "selfdir"));
    expect(errorCode(await c.call(TOOL.moveFile, { source: "selfdir", destination: "selfdir/inner" }))).toBe(
      "invalid_path",
    );
  });
});

describe("system_open_file", () => {
  it("says the IDE is not running when none is configured", async () => {
    const r = await c.call(TOOL.openFile, { path: "README.md" });
    expect(errorCode(r)).toBe("unavailable");
    expect(textOf(r)).toMatch(/IDE/);
  });

  it("posts to the IDE's open-file API when one is running", async () => {
    const received: unknown[] = [];
    const ide = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        received.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) as unknown });
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ clients: 2 }));
      });
    });
    await new Promise<void>((r) => ide.listen(0, "127.0.0.1", r));
    const port = (ide.address() as AddressInfo).port;
    const withIde = await connectInMemory({ ideUrl: `http://127.0.0.1:${port}`, ideToken: "tok" });
    try {
      const r = await withIde.call(TOOL.openFile, { path: "data/planets.xlsx", line: 3 });
      expect(r.structuredContent).toMatchObject({ path: "data/planets.xlsx", clients: 2 });
      expect(received).toEqual([
        { url: "/api/open-file", auth: "Bearer tok", body: { path: "data/planets.xlsx", line: 3 } },
      ]);
      expect(errorCode(await withIde.call(TOOL.openFile, { path: "nope.txt" }))).toBe("not_found");
    } finally {
      await withIde.close();
      ide.close();
    }
  });
});

describe("resources", () => {
  it("lists the same capped set of files every time, shallower folders first", async () => {
    const lists: string[][] = [];
    for (let i = 0; i < 3; i++) lists.push((await c.client.listResources()).resources.map((r) => r.uri));
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    const files = lists[0]!.filter((u) => !u.endsWith("/"));
    expect(files).toHaveLength(1000);
    // data/ sorts before dir-with-1200/, whose 1,200 files would otherwise crowd the sample out.
    expect(files).toContain("textide://project_root/data/planets.xlsx");
  });

  it("exposes both roots and reads files through the template", async () => {
    const { resources } = await c.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("textide://project_root/");
    expect(uris).toContain("textide://generated_assets/");
    expect(uris).toContain("textide://project_root/data/planets.xlsx");
    const { resourceTemplates } = await c.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("textide://{root}/{+path}");
    const readme = await c.client.readResource({ uri: "textide://project_root/README.md" });
    expect(readme.contents[0] && "text" in readme.contents[0] ? readme.contents[0].text : "").toContain("planets");
    const xlsx = await c.client.readResource({ uri: "textide://project_root/data/planets.xlsx" });
    expect(xlsx.contents[0] && "blob" in xlsx.contents[0]).toBe(true);
  });

  it("answers a missing or escaping resource with a protocol error, and keeps serving", async () => {
    await expect(c.client.readResource({ uri: "textide://project_root/nope.md" })).rejects.toThrow();
    await expect(c.client.readResource({ uri: "textide://project_root/..%2F..%2Fetc%2Fpasswd" })).rejects.toThrow();
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe("observability", () => {
  it("logs one structured line per call with the caller's correlation id and no file contents", async () => {
    const before = c.logs.length;
    await c.client.callTool({
      name: TOOL.writeFile,
      arguments: { path: "generated_assets/secret.txt", content: "TOP-SECRET-CONTENT".repeat(20) },
      _meta: { [CORRELATION_META_KEY]: "corr-123" },
    });
    await new Promise((resolve) => setImmediate(resolve)); // the call's line leaves at the end of its turn
    const lines = c.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.find((l) => l.tool === TOOL.writeFile);
    expect(line).toMatchObject({ correlationId: "corr-123", outcome: "ok" });
    expect(typeof line?.ms).toBe("number");
    expect(JSON.stringify(lines)).not.toContain("TOP-SECRET-CONTENT");
  });
});
