// The production web server (apps/web/dist) as its own process, headless chromium, and the
// resident memory of a process tree read from /proc.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";
import { MODEL_ENV_KEYS } from "../../apps/web/dist/server/config.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Model variables that would make the server use something other than the offline planner. */
const MODEL_ENV = [...MODEL_ENV_KEYS, "TEXTIDE_IDE_TOKEN"];

/** A copy of the sample workspace under `tmp`, with empty assets and data folders, as the web server's paths. */
export async function copyWorkspace(repoRoot, tmp) {
  const projectRoot = path.join(tmp, "project_root");
  const generatedAssets = path.join(tmp, "generated_assets");
  const dataDir = path.join(tmp, "data");
  await cp(path.join(repoRoot, "project_root"), projectRoot, { recursive: true });
  await mkdir(generatedAssets);
  await mkdir(dataDir);
  return { projectRoot, generatedAssets, dataDir };
}

/**
 * Starts `node apps/web/dist/server/index.js` (production, port 0) over the given roots (`env` adds
 * or overrides variables, e.g. MCP_HTTP_TOKEN); resolves with
 * `{ child, base, stop }` once it prints its URL. `startupMs` is spawn → URL printed.
 */
export function startWebServer(repoRoot, { projectRoot, generatedAssets, dataDir, env: extraEnv = {} }) {
  const web = path.join(repoRoot, "apps/web");
  const entry = path.join(web, "dist/server/index.js");
  if (!existsSync(entry) || !existsSync(path.join(web, ".next/BUILD_ID"))) {
    throw new Error("apps/web is not built: run `npm run build` (npm run bench does it first).");
  }
  const env = { ...process.env };
  for (const key of MODEL_ENV) delete env[key];
  Object.assign(env, {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    // As `npm start` runs it (with the MCP endpoint for external clients), on a free port.
    MCP_HTTP_PORT: "0",
    PROJECT_ROOT: projectRoot,
    GENERATED_ASSETS: generatedAssets,
    TEXTIDE_DATA_DIR: dataDir,
    TEXTIDE_MODEL: "offline",
    ...extraEnv,
  });
  const t0 = performance.now();
  const child = spawn(process.execPath, [entry], { cwd: web, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`web server did not start in 60 s:\n${log}`));
    }, 60_000);
    const onData = (chunk) => {
      log += chunk.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1], startupMs: performance.now() - t0, output: () => log, stop });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`web server exited with ${code}:\n${log}`));
    });
  });
}

export function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is absent (apt-get install -y chromium).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** `pid` and all its descendants, from the parent ids in /proc/<pid>/stat. */
function processTree(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(entry, "stat");
    // The command name (field 2) is in parentheses and may contain spaces: parse after the last ')'.
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : NaN;
    if (!Number.isFinite(ppid)) continue;
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(entry));
  }
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** Resident set size (VmRSS) of `pid` alone and of its whole process tree, in bytes. */
export function treeRss(pid) {
  const rss = (p) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readProc(p, "status") ?? "");
    return m ? Number(m[1]) * 1024 : 0;
  };
  const pids = processTree(pid);
  const names = pids.slice(1).map((p) => (readProc(p, "cmdline") ?? "").split("\0").filter(Boolean));
  return { self: rss(pid), total: pids.reduce((sum, p) => sum + rss(p), 0), children: names };
}
