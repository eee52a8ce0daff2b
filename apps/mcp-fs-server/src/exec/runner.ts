// The sandbox runner: a child process (`node --no-node-snapshot`) that runs one request at a
// time, each in a fresh isolate. Spawned and supervised by pool.ts; never imported by it.
import { preloadCharting } from "./chart.js";
import { childPolicy, serveRuns, send, startChild } from "./child.js";
import { runInIsolate } from "./sandbox.js";

async function start(): Promise<void> {
  const policy = await childPolicy("exec runner");
  const t0 = performance.now();
  // The workbook reader loads lazily in the MCP server; here it is loaded before the first run's clock starts.
  await Promise.all([preloadCharting(), import("read-excel-file/node")]);
  send({ type: "ready", warmupMs: Math.round(performance.now() - t0) });

  const onCatastrophic = (message: string) => {
    // isolated-vm lost control of an isolate: this process cannot be trusted any more.
    send({ type: "fatal", message });
    process.exit(70);
  };
  serveRuns("exec runner", (msg) =>
    runInIsolate(msg, policy, onCatastrophic, (chart) =>
      send({ type: "stage", id: msg.id, stage: "rendering", chart }),
    ),
  );
}

startChild(start);
