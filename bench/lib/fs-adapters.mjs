// One interface over textide's and the reference server's file tools, so the suite runs the
// exact same workload against both. Each adapter checks answers, not just that a call returned:
// a server that is fast because it returns the wrong thing must not look good.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { resultText } from "./mcp.mjs";

const MAX_PAGE = 1024 * 1024;
// Not a default we test: just long enough that a slow search on a slow machine is a number.
const LONG_CALL = { timeout: 10 * 60_000 };

export function textideAdapter(repoRoot, treeRoot, assetsRoot) {
  const entry = path.join(repoRoot, "apps/mcp-fs-server/dist/index.js");
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "apps/mcp-fs-server/package.json"), "utf8"));
  return {
    label: "textide",
    version: `${pkg.name}@${pkg.version}`,
    command: process.execPath,
    args: [entry, "--root", treeRoot, "--assets", assetsRoot],
    tools: ["fs_read_file", "fs_list_directory", "fs_search_files"],
    async read(s, rel) {
      const res = await s.call("fs_read_file", { path: rel });
      if (res.structuredContent?.truncated !== false) throw new Error(`textide: ${rel} came back truncated`);
      return res.content[0].text.length;
    },
    async list(s, rel) {
      const res = await s.call("fs_list_directory", { path: rel });
      return res.structuredContent.entries.length;
    },
    async search(s, query) {
      const res = await s.call("fs_search_files", { query }, LONG_CALL);
      if (res.structuredContent.truncated) throw new Error("textide: search truncated; raise limit");
      return res.structuredContent.matches.length;
    },
    /** Pages through the file as a client must: maxBytes at most 1 MiB, follow nextOffset. */
    async readWhole(s, rel) {
      const parts = [];
      let offset = 0;
      for (;;) {
        const res = await s.call("fs_read_file", { path: rel, offset, maxBytes: MAX_PAGE });
        parts.push(res.content[0].text); // content[1], when present, is the "[truncated …]" hint
        const sc = res.structuredContent;
        if (!sc.truncated) break;
        if (!(sc.nextOffset > offset))
          throw new Error(`textide: nextOffset ${sc.nextOffset} does not advance from ${offset}`);
        offset = sc.nextOffset;
      }
      return { text: parts.join(""), pages: parts.length };
    },
  };
}

export function referenceAdapter(treeRoot) {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("@modelcontextprotocol/server-filesystem/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
  const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin)[0];
  // The reference only accepts absolute paths inside its allowed directory.
  const abs = (rel) => path.join(treeRoot, rel);
  return {
    label: "reference",
    version: `${pkg.name}@${pkg.version}`,
    command: process.execPath,
    args: [path.join(path.dirname(pkgPath), bin), treeRoot],
    tools: ["read_text_file", "list_directory", "search_files"],
    async read(s, rel) {
      return resultText(await s.call("read_text_file", { path: abs(rel) })).length;
    },
    async list(s, rel) {
      return resultText(await s.call("list_directory", { path: abs(rel) }))
        .split("\n")
        .filter(Boolean).length;
    },
    async search(s, query) {
      // search_files is minimatch over the path relative to `path`, so a bare name only
      // matches at the top level; `**/*q*` is the equivalent of textide's substring query.
      const text = resultText(await s.call("search_files", { path: treeRoot, pattern: `**/*${query}*` }, LONG_CALL));
      return text === "No matches found" ? 0 : text.split("\n").filter(Boolean).length;
    },
    /** One whole-file call with the SDK client's default settings, as a host would make it. */
    async readWhole(s, rel) {
      return { text: resultText(await s.call("read_text_file", { path: abs(rel) })), pages: 1 };
    },
  };
}
