// The sandbox runner: a child process (`node --no-node-snapshot`) that runs one request at a
// time, each in a fresh isolate. Spawned and supervised by pool.ts; never imported by it.
import { parseArgs } from "node:util";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { preloadCharting } from "./chart.js";
import type { RunnerMessage, RunRequest } from "./protocol.js";
import { runInIsolate } from "./sandbox.js";

const send = (m: RunnerMessage) => process.send?.(m);

async function start(): Promise<void> {
  const { values } = parseArgs({ options: { project: { type: "string" }, assets: { type: "string" } } });
  if (!values.project || !values.assets || !process.send)
    throw new Error("runner: --project, --assets and an IPC channel are required");
  // Sandboxed code reads both roots and writes only generated_assets.
  const roots = await resolveRoots([
    { name: ROOT.project, path: values.project, writable: false },
    { name: ROOT.assets, path: values.assets, writable: true },
  ]);
  const policy = new PathPolicy(roots);
  const t0 = performance.now();
  // The workbook reader loads lazily in the MCP server; here it is loaded before the first run's clock starts.
  await Promise.all([preloadCharting(), import("read-excel-file/node")]);
  send({ type: "ready", warmupMs: Math.round(performance.now() - t0) });

  const onCatastrophic = (message: string) => {
    // isolated-vm lost control of an isolate: this process cannot be trusted any more.
    send({ type: "fatal", message });
    process.exit(70);
  };
  process.on("message", (msg: RunRequest) => {
    if (msg?.type !== "run") return;
    const onRender = (chart: string) => send({ type: "stage", id: msg.id, stage: "rendering", chart });
    void runInIsolate(msg, policy, onCatastrophic, onRender).then(({ outcome, recycle }) =>
      send({ type: "result", id: msg.id, outcome, recycle }),
    );
  });
  process.on("disconnect", () => process.exit(0));
  // A stray rejection from a host call must not take the runner (and the run after it) down.
  process.on("unhandledRejection", (err) => process.stderr.write(`exec runner: unhandled rejection: ${String(err)}\n`));
}

start().catch((err: unknown) => {
  send({ type: "fatal", message: (err as Error).message });
  process.exit(1);
});
