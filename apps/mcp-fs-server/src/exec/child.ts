// What the exec runner (runner.ts) and the SQL worker (sql/worker.ts) share as children of the exec
// pool: their roots from the command line, the IPC loop that answers runs, and how they fail to start.
import { parseArgs } from "node:util";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import type { RunnerMessage, RunOutcome, RunRequest } from "./protocol.js";

export const send = (m: RunnerMessage) => process.send?.(m);

/** The roots the pool passed (`--project`, `--assets`): code reads both and writes only generated_assets. */
export async function childPolicy(name: string): Promise<PathPolicy> {
  const { values } = parseArgs({ options: { project: { type: "string" }, assets: { type: "string" } } });
  if (!values.project || !values.assets || !process.send)
    throw new Error(`${name}: --project, --assets and an IPC channel are required`);
  const roots = await resolveRoots([
    { name: ROOT.project, path: values.project, writable: false },
    { name: ROOT.assets, path: values.assets, writable: true },
  ]);
  return new PathPolicy(roots);
}

/** Answers each run request with its outcome; leaves when the pool goes away. */
export function serveRuns(
  name: string,
  run: (req: RunRequest) => Promise<{ outcome: RunOutcome; recycle: boolean }>,
): void {
  process.on("message", (msg: RunRequest) => {
    if (msg?.type !== "run") return;
    void run(msg).then(({ outcome, recycle }) => send({ type: "result", id: msg.id, outcome, recycle }));
  });
  process.on("disconnect", () => process.exit(0));
  // A stray rejection from a host call must not take the child (and the run after it) down.
  process.on("unhandledRejection", (err) => process.stderr.write(`${name}: unhandled rejection: ${String(err)}\n`));
}

/** Starts the child; a failure to start is told to the pool (which reports it) before exiting. */
export function startChild(start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    send({ type: "fatal", message: (err as Error).message });
    process.exit(1);
  });
}
