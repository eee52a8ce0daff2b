// `npm start`: the web IDE's production server (`npm run dev`: the same server with Next.js in dev mode) on the sample workspace with the embedded defaults
// (apps/web/server/config.ts), overridable from .env or the environment (see .env.example). It also
// serves the bundled MCP server over Streamable HTTP for external clients and prints how to connect.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envFile = path.join(repo, ".env");
if (existsSync(envFile)) process.loadEnvFile(envFile);

// cwd is the repo, so relative paths in .env (PROJECT_ROOT=./project_root) mean what they say.
const child = spawn(process.execPath, [path.join(repo, "apps/web/dist/server/index.js")], {
  cwd: repo,
  env: { ...process.env, NODE_ENV: process.argv.includes("--dev") ? "development" : "production" },
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
