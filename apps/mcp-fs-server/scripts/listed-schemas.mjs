// The tools' input and output schemas converted to JSON Schema at build time, for the start-up bundle
// (src/tools/listed-schemas.ts says why). Taken from the tools as the server registers them, so the
// list cannot drift from the code: a tool the build machine leaves out (exec_run_python without
// python3) has none, and the SDK converts its schemas at run time as before.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Same draft as the SDK (and TARGET in src/tools/listed-schemas.ts). */
const TARGET = "draft-2020-12";

/** `{ "<tool>.input": json, "<tool>.output": json }` for every tool the compiled server in `dist` registers. */
export async function convertToolSchemas(dist) {
  const load = (rel) => import(pathToFileURL(path.join(dist, rel)).href);
  const [{ createFsServer }, { registerTools }, { createLogger }] = await Promise.all([
    load("server.js"),
    load("tools/index.js"),
    load("log.js"),
  ]);
  const base = await mkdtemp(path.join(os.tmpdir(), "textide-listed-schemas-"));
  await Promise.all([mkdir(path.join(base, "project")), mkdir(path.join(base, "assets"))]);
  const fs = await createFsServer({
    projectRoot: path.join(base, "project"),
    assetsRoot: path.join(base, "assets"),
    log: createLogger("silent"),
    exec: { auditLog: path.join(base, "audit.jsonl"), sandbox: "auto" },
    // No sweep, no sandbox check: nothing runs, only registrations are read.
    backgroundAfter: new Promise(() => {}),
  });
  const built = {};
  try {
    const recorder = {
      registerTool(name, config) {
        for (const io of ["input", "output"]) {
          const schema = config[`${io}Schema`];
          if (schema) built[`${name}.${io}`] = JSON.stringify(schema["~standard"].jsonSchema[io]({ target: TARGET }));
        }
      },
    };
    registerTools(recorder, fs.ctx);
  } finally {
    await fs.close();
    await rm(base, { recursive: true, force: true });
  }
  return built;
}
