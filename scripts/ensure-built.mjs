// Builds the workspaces when a dist/ is missing or older than its sources, so `npm run agent`
// works on a fresh clone without paying for a full build on every call.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const workspaces = ["packages/shared", "packages/agent", "apps/mcp-fs-server"];

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const stale = workspaces.some((w) => {
  const dist = path.join(repo, w, "dist");
  return !existsSync(dist) || newest(path.join(repo, w, "src")) > newest(dist);
});
// Build output goes to stderr: stdout may carry --json output.
if (stale) execSync("npm run build --silent", { cwd: repo, stdio: ["ignore", process.stderr, "inherit"] });
