// Bundles the server's start path into a few files after tsc: dist/index.js (the bin) is rewritten to
// load dist/bundle/*.js instead of ~280 separate modules (the SDK, zod, pino, @textide/shared, ours).
// Clients spawn the server per session, and loading one large file is much cheaper than resolving,
// reading and linking hundreds (docs/ARCHITECTURE.md, "Start-up of the MCP server").
// The rest of dist/ stays as tsc wrote it: the exec runner, the SQL worker and the Python zygote are
// spawned from their own files, and other workspaces import dist/server.js.
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { convertToolSchemas } from "./listed-schemas.mjs";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const entry = path.join(dist, "index.js");
const CHUNKS = "bundle";
/** Native addons load their .node files relative to their package; the start path never imports them. */
const NATIVE = ["isolated-vm", "@duckdb/node-api", "@resvg/resvg-js"];

/**
 * Our modules find files beside themselves (the runner and worker scripts, python/) through
 * import.meta.url. Inside a chunk that would be the chunk's URL, so each use is pointed back at the
 * module's own place in dist/, relative to the chunk directory: the bundle stays relocatable.
 */
function keepModuleUrls() {
  const rewritten = new Set();
  return {
    name: "keep-module-urls",
    transform(code, id) {
      if (!id.startsWith(dist) || !code.includes("import.meta.url")) return null;
      rewritten.add(id);
      const own = path.relative(path.join(dist, CHUNKS), id).split(path.sep).join("/");
      return { code: code.replaceAll("import.meta.url", `new URL(${JSON.stringify(own)}, import.meta.url).href`) };
    },
    renderChunk(_code, chunk) {
      const misplaced = chunk.moduleIds.filter((id) => rewritten.has(id));
      if (!chunk.fileName.startsWith(`${CHUNKS}/`) && misplaced.length > 0)
        throw new Error(
          `${misplaced.join(", ")} use import.meta.url but landed in ${chunk.fileName}, outside ${CHUNKS}/`,
        );
      return null;
    },
  };
}

/** Writes the tools' JSON Schemas, converted now, into src/tools/listed-schemas.ts's compiled module. */
function listedSchemas(built) {
  const file = path.join(dist, "tools/listed-schemas.js");
  const PLACEHOLDER = "/* listed-schemas */ undefined";
  return {
    name: "listed-schemas",
    transform(code, id) {
      if (id !== file) return null;
      if (!code.includes(PLACEHOLDER)) throw new Error(`${file} no longer holds ${PLACEHOLDER}`);
      return { code: code.replace(PLACEHOLDER, JSON.stringify(built)) };
    },
  };
}

if (!(await readFile(entry, "utf8")).includes('import("./main.js")'))
  throw new Error(
    `${entry} is not tsc's output (bundled already?): run \`npm run build -w apps/mcp-fs-server\`, which compiles before bundling`,
  );
await rm(path.join(dist, CHUNKS), { recursive: true, force: true });
await build({
  input: { index: entry },
  platform: "node",
  external: (id) => NATIVE.some((p) => id === p || id.startsWith(`${p}/`)),
  plugins: [keepModuleUrls(), listedSchemas(await convertToolSchemas(dist))],
  logLevel: "warn",
  output: { dir: dist, format: "esm", entryFileNames: "[name].js", chunkFileNames: `${CHUNKS}/[name]-[hash].js` },
});
