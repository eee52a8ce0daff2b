import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import type { Workspace } from "./helpers.js";

const WEB = fileURLToPath(new URL("../", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const SERVER = path.join(WEB, "dist/server/index.js");
export const RESULTS = path.join(WEB, "test-results");

/** Why browser tests cannot run here (no Chromium, or apps/web not built), or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is absent (apt-get install -y chromium)`;
  if (!existsSync(SERVER) || !existsSync(path.join(WEB, ".next/BUILD_ID"))) {
    return "apps/web is not built (npm run build -w apps/web)";
  }
  return undefined;
}

export interface ProductionServer {
  child: ChildProcess;
  base: string;
  /** Everything the server printed so far. */
  log(): string;
  stop(): void;
}

/** Starts the production server for `ws` on a free port; resolves with its base URL once it prints it. */
export function startProductionServer(ws: Workspace, extraEnv: NodeJS.ProcessEnv = {}): Promise<ProductionServer> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    PROJECT_ROOT: ws.project,
    GENERATED_ASSETS: ws.assets,
    TEXTIDE_DATA_DIR: path.join(ws.dir, "data"),
    ...extraEnv,
  };
  delete env.TEXTIDE_IDE_TOKEN;
  const child = spawn(process.execPath, [SERVER], { cwd: WEB, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 25_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, base: m[1], log: () => log, stop: () => child.kill("SIGTERM") });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}

/** Debian's Chromium, headless, with the flags DESIGN.md lists. */
export function launchBrowser(): Promise<Browser> {
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
