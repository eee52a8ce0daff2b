/**
 * What every test of the production build needs: apps/web's built server started as its own process on a
 * free port over a temp workspace (optionally with its MCP endpoint for external clients), and Debian's
 * chromium driven by playwright-core.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { MODEL_ENV_KEYS } from "../server/config.js";
import { makeWorkspace, type Workspace } from "./helpers.js";

export const WEB = fileURLToPath(new URL("../", import.meta.url));
export const REPO = path.resolve(WEB, "../..");
export const RESULTS = path.join(WEB, "test-results");
const CHROMIUM = "/usr/bin/chromium";
const SERVER = path.join(WEB, "dist/server/index.js");
export const MCP_BIN = path.join(REPO, "apps/mcp-fs-server/dist/index.js");

/** Why the production server cannot be started here, or undefined when it can. */
export const notBuiltReason: string | undefined =
  !existsSync(SERVER) || !existsSync(path.join(WEB, ".next/BUILD_ID")) || !existsSync(MCP_BIN)
    ? "the apps are not built (npm run build)"
    : undefined;

/** Why browser tests cannot run here, or undefined when they can. */
export const browserSkipReason: string | undefined = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is absent (apt-get install -y chromium)`
  : notBuiltReason;

/**
 * Variables from the developer's shell that the spawned server must not see: they would pick a model, fix
 * the tokens or quieten the log lines the harness waits for.
 */
const DROPPED_ENV = [...MODEL_ENV_KEYS, "TEXTIDE_IDE_TOKEN", "MCP_HTTP_TOKEN", "LOG_LEVEL"];

export interface WebProcess {
  child: ChildProcess;
  base: string;
  /** Everything the server printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface McpWebProcess extends WebProcess {
  /** The MCP endpoint for external clients, and its bearer token, as printed at start. */
  mcpUrl: string;
  token: string;
}

/**
 * Starts `node dist/server/index.js` (NODE_ENV=production) on port 0 over `ws`; resolves with its URL once
 * it prints it. Model variables from the caller's shell are dropped, so with no `env` the offline planner
 * answers; pass them in `env` to point the server at another model. The MCP HTTP endpoint is off (see
 * startMcpWebProcess).
 */
export function startWebProcess(ws: Workspace, env: Record<string, string> = {}): Promise<WebProcess> {
  return spawnWeb(ws, { MCP_HTTP_PORT: "off", ...env }, (log) => {
    const base = /listening on (http:\/\/\S+)/.exec(log)?.[1];
    return base ? { base } : undefined;
  });
}

/**
 * The server as `npm start` runs it, with the MCP endpoint for external clients on a free port
 * (MCP_HTTP_PORT=0) and a generated token; resolves once both URLs and the token are printed.
 */
export function startMcpWebProcess(ws: Workspace, env: Record<string, string> = {}): Promise<McpWebProcess> {
  return spawnWeb(ws, { MCP_HTTP_PORT: "0", ...env }, (log) => {
    const base = /listening on (http:\/\/\S+)/.exec(log)?.[1];
    const mcpUrl = /for external clients: (http:\/\/\S+)/.exec(log)?.[1];
    const token = /Bearer token: (\S+)/.exec(log)?.[1];
    return base && mcpUrl && token ? { base, mcpUrl, token } : undefined;
  });
}

/** Spawns the server and resolves once `ready` finds what it needs in the output so far. */
function spawnWeb<T extends { base: string }>(
  ws: Workspace,
  env: Record<string, string>,
  ready: (log: string) => T | undefined,
): Promise<Omit<WebProcess, "base"> & T> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of DROPPED_ENV) delete childEnv[key];
  Object.assign(childEnv, {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    PROJECT_ROOT: ws.project,
    GENERATED_ASSETS: ws.assets,
    TEXTIDE_DATA_DIR: path.join(ws.dir, "data"),
    ...env,
  });
  const child = spawn(process.execPath, [SERVER], { cwd: WEB, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`server did not start:\n${log}`));
    }, 30_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const found = ready(log);
      if (found) {
        clearTimeout(timer);
        resolve({ ...found, child, output: () => log, stop });
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

/** A real MCP SDK client over Streamable HTTP with a bearer token. */
export async function connectMcp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "textide-web-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The server's MCP HTTP child (only ours: a child of the server process the test spawned). */
export function mcpChildPid(serverPid: number): number | undefined {
  try {
    const out = execFileSync("pgrep", ["-P", String(serverPid), "-f", "--", "--http"], { encoding: "utf8" });
    return out.split("\n").filter(Boolean).map(Number)[0];
  } catch {
    return undefined; // pgrep exits 1 when nothing matches
  }
}

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

export interface IdePage {
  page: Page;
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  consoleLines: string[];
  /** Every URL the page requested. */
  requested: string[];
}

/** A fresh context (own storage, so the theme starts from `colorScheme`) with the IDE loaded. */
export async function openIde(
  browser: Browser,
  base: string,
  options: BrowserContextOptions = { viewport: { width: 1400, height: 860 } },
): Promise<IdePage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const ide: IdePage = { page, pageErrors: [], consoleLines: [], requested: [] };
  page.on("pageerror", (err) => ide.pageErrors.push(err.message));
  page.on("console", (m) => ide.consoleLines.push(m.text()));
  page.on("request", (r) => ide.requested.push(r.url()));
  await page.goto(base);
  return ide;
}

export interface IdeRun extends IdePage {
  ws: Workspace;
  /** The running server; a test may stop it and put a new one here (close() stops whichever is here). */
  server: WebProcess;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * The usual browser-test set-up: a temp workspace (changed by `prepare` first), the production server over
 * it with `env`, and the IDE open in chromium with its socket connected.
 */
export async function startIde(
  opts: { env?: Record<string, string>; prepare?: (ws: Workspace) => Promise<void>; page?: BrowserContextOptions } = {},
): Promise<IdeRun> {
  const ws = await makeWorkspace();
  let server: WebProcess | undefined;
  let browser: Browser | undefined;
  try {
    await opts.prepare?.(ws);
    server = await startWebProcess(ws, opts.env);
    browser = await launchBrowser();
    const ide = await openIde(browser, server.base, opts.page);
    await ide.page.waitForSelector(".conn.ok", { timeout: 15_000 });
    const run: IdeRun = {
      ...ide,
      ws,
      server,
      browser,
      async close() {
        await run.browser.close();
        await run.server.stop();
        await ws.remove();
      },
    };
    return run;
  } catch (err) {
    await browser?.close();
    await server?.stop();
    await ws.remove();
    throw err;
  }
}

/** Saves a screenshot under apps/web/test-results/ (gitignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Replaces a file the way editors and the agent do: temp file beside it, then rename. */
export async function writeAtomic(file: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  await writeFile(tmp, content);
  await rename(tmp, file);
}
