import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";

const REDIS_SERVER = "/usr/bin/redis-server";

/** Why Redis tests cannot run here, or undefined when they can. */
export const redisSkipReason: string | undefined = existsSync(REDIS_SERVER)
  ? undefined
  : `${REDIS_SERVER} is absent (apt-get install -y redis-server)`;

export interface RedisService {
  url: string;
  port: number;
  /** Stops it with SIGTERM and waits; `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  /** Stops it for good and removes its directory. */
  remove(): Promise<void>;
}

/**
 * Debian's redis-server on 127.0.0.1 and a free port, in a temp dir, without persistence (never the
 * system instance or port 6379).
 */
export async function startRedis(): Promise<RedisService> {
  const dir = await mkdtemp(path.join(tmpdir(), "textide-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = "";

  const start = async (): Promise<void> => {
    output = "";
    const proc = spawn(
      REDIS_SERVER,
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    proc.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
    proc.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
    child = proc;
    await waitForPort(port, () => (proc.exitCode === null ? undefined : `redis-server exited:\n${output}`));
  };
  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(signal);
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop: () => halt("SIGTERM"),
    kill: () => halt("SIGKILL"),
    async remove() {
      await halt("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once something accepts connections on the port; `failed` names why it never will. */
export async function waitForPort(port: number, failed: () => string | undefined, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const reason = failed();
    if (reason) throw new Error(reason);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
