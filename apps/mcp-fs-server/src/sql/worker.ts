// The SQL worker: a child process (under bubblewrap when available) that runs one sql_query at a
// time, each in a fresh in-memory DuckDB database. Spawned and supervised by the exec pool
// (pool.ts: warm start, hard kill at the deadline, respawn after a crash); never imported by it.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { childPolicy, serveRuns, send, startChild } from "../exec/child.js";
import { Databases } from "./databases.js";
import { runSql, type SqlJob } from "./engine.js";
import { SQL_LIMITS } from "./limits.js";
import { Staging } from "./staging.js";

async function start(): Promise<void> {
  const policy = await childPolicy("sql worker");
  // Under bubblewrap /tmp is a private tmpfs; without it, a private folder removed at exit, and those
  // of workers that were killed (no exit handler ran) removed by the next worker that starts.
  removeOrphans(os.tmpdir());
  const scratch = mkdtempSync(path.join(os.tmpdir(), `textide-sql-${process.pid}-`));
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
  // Relative paths DuckDB was not given by us resolve inside the scratch folder, never elsewhere.
  process.chdir(scratch);
  const staging = new Staging(policy, scratch);
  const databases = new Databases(scratch);
  const t0 = performance.now();
  // Loads the native library and makes the first query's database before saying "ready".
  databases.prepare(SQL_LIMITS.memoryMb);
  await databases.take(SQL_LIMITS.memoryMb).then((d) => databases.release(d, SQL_LIMITS.memoryMb, true));
  send({ type: "ready", warmupMs: Math.round(performance.now() - t0) });

  serveRuns("sql worker", (msg) => runSql(JSON.parse(msg.code) as SqlJob, msg, { policy, staging, databases }));
  process.on("SIGTERM", () => process.exit(0)); // runs the exit handler that removes the scratch folder
}

/** Scratch folders of workers that are gone (the pid in the name is not alive any more). */
function removeOrphans(tmp: string): void {
  for (const name of readdirSync(tmp)) {
    const pid = Number(/^textide-sql-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

startChild(start);
