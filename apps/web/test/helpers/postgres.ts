import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";

/** A throwaway PostgreSQL server (Debian's binaries) in a temp dir on 127.0.0.1 and a free port. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth, loopback only). */
  readonly url: string;
  readonly port: number;
  /** Fast shutdown (SIGINT); the data stays for `start()`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** SIGKILL, as a crash would (the data stays; `start()` recovers it). */
  kill(): Promise<void>;
  /** Stops it and removes the temp dir. */
  remove(): Promise<void>;
}

/** Why Postgres tests cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  return binDir() ? undefined : "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/postgres); .ci/run installs it";
}

/**
 * initdb + postgres in a temp dir. fsync and full-page writes are off (the tests need the operating system's
 * cache to survive, not the disk); commits still wait for their WAL write, so a SIGKILL keeps what the server
 * acknowledged. Postgres refuses to run as root,
 * so as root the server runs as the `postgres` user (spawn's uid/gid) in a temp dir that user owns.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  if (!bin) throw new Error(postgresSkipReason());
  const dir = await mkdtemp(path.join(tmpdir(), "textide-pg-"));
  const data = path.join(dir, "data");
  const user = runAs();
  if (user) await chown(dir, user.uid, user.gid);
  const init = spawnSync(
    path.join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
    { encoding: "utf8", cwd: dir, ...(user ?? {}) },
  );
  if (init.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
  }
  const port = await freePort();
  const args = [
    ...["-D", data, "-p", String(port), "-k", dir],
    ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off"],
    ...["-c", "shared_buffers=16MB", "-c", "max_connections=60"],
  ];
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    if (child) return;
    const proc = spawn(path.join(bin, "postgres"), args, {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
      ...(user ?? {}),
    });
    child = proc;
    let log = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`postgres did not start within 30 s:\n${log}`)), 30_000);
      proc.stderr?.on("data", (chunk: Buffer) => {
        if (log.length < 20_000) log += chunk.toString();
        if (log.includes("ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited (${code}) while starting:\n${log}`));
      });
    });
    proc.stderr?.resume();
  };

  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const proc = child;
    if (!proc) return;
    child = undefined;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(sig);
    await exited;
  };

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: () => signal("SIGINT"),
    kill: () => signal("SIGKILL"),
    async remove() {
      await signal("SIGINT");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The newest installed version's bin directory that has both initdb and postgres. */
function binDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, "bin");
    if (existsSync(path.join(bin, "initdb")) && existsSync(path.join(bin, "postgres"))) return bin;
  }
  return undefined;
}

/** The postgres user's ids when we are root (Postgres will not run as root), else undefined. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => {
    const out = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
    if (out.status !== 0) throw new Error("Running as root but there is no postgres user to run PostgreSQL as.");
    return Number(out.stdout.trim());
  };
  return { uid: id("-u"), gid: id("-g") };
}
