// `npm run mcp`: only the bundled MCP server, over Streamable HTTP, on the sample workspace with the
// embedded defaults, overridable from .env or the environment (see .env.example). `npm start` serves the
// same server from the web IDE's process.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envFile = path.join(repo, ".env");
if (existsSync(envFile)) process.loadEnvFile(envFile);

const env = {
  ...process.env,
  PROJECT_ROOT: process.env.PROJECT_ROOT || path.join(repo, "project_root"),
  GENERATED_ASSETS: process.env.GENERATED_ASSETS || path.join(repo, "generated_assets"),
  // Beside the roots, never inside them (the server refuses that).
  EXEC_AUDIT_LOG: process.env.EXEC_AUDIT_LOG || path.join(repo, ".textide", "exec-audit.jsonl"),
};
const child = spawn(
  process.execPath,
  [path.join(repo, "apps/mcp-fs-server/dist/index.js"), "--http", ...process.argv.slice(2)],
  {
    env,
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
