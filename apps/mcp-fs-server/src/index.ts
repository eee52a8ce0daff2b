#!/usr/bin/env node
import { enableCompileCache } from "node:module";
import { setFlagsFromString } from "node:v8";
import { probeBwrap } from "./exec/bwrap-probe.js";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `mcp-fs-server needs Node 22 or newer (this is ${process.version}). Use the repo's pinned Node: \`npm install\`, then node_modules/.bin/node.\n`,
  );
  process.exit(1);
}

// Memory without --optimize-for-size: V8 would grow the young generation to tens of MiB under concurrent
// calls and let the old one grow up to 4x between full collections. Keeping the young generation at its
// initial size and the growth factor at 2x holds peak RSS under the reference server's, while
// --optimize-for-size (which did the same job before) cost about a fifth more CPU per call: it also retunes
// the rest of the heap and the JIT. Measured in docs/ARCHITECTURE.md, "Heap tuning of the MCP server".
// Both flags are read at each collection, so setting them here, before any module loads, takes effect.
setFlagsFromString("--semi-space-growth-factor=1");
setFlagsFromString("--heap-growing-percent=100");

// Clients spawn this server per session, so start-up counts: V8's compiled code for our modules and the
// SDK's is kept on disk (the OS temp folder) and reused by the next start — about 13 % faster to
// tools/list here. A cache that cannot be written is ignored by Node.
enableCompileCache();

// bubblewrap's probe is a process of its own: started now, it runs while the modules below load, and
// costs least to spawn while this process is still small. The server awaits its answer (server.ts).
void probeBwrap();

const { main, exitOnStartupError } = await import("./main.js");
main().catch(exitOnStartupError);
