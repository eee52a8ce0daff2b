#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `mcp-fs-server needs Node 22 or newer (this is ${process.version}). Use the repo's pinned Node: \`npm install\`, then node_modules/.bin/node.\n`,
  );
  process.exit(1);
}

// The server mostly waits on I/O: favour memory over peak JIT speed. Set before any module loads,
// so the heap is sized with it (measured in docs/BENCHMARKS.md: peak RSS on par with the reference).
setFlagsFromString("--optimize-for-size");

const { main, exitOnStartupError } = await import("./main.js");
main().catch(exitOnStartupError);
