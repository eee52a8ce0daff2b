// Spawns an MCP server over stdio with the SDK client, the way an MCP host does.
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { now } from "./timing.mjs";

const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Starts `command args` and completes the MCP handshake. `initMs` runs from just before the
 * spawn to the end of initialize, i.e. what a host waits for before the first tool call.
 * Transport settings are left at the SDK defaults on purpose (see the 5 MiB read).
 */
export async function connectStdio({ command, args, label }) {
  // stderr is piped and drained (not inherited) so server logs do not flood the bench
  // output but the server still pays for writing them, as under a real host.
  const transport = new StdioClientTransport({ command, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-STDERR_TAIL_BYTES);
  });
  const client = new Client({ name: "textide-bench", version: "0.0.0" });
  const state = { closed: false, error: undefined };
  client.onclose = () => {
    state.closed = true;
  };
  client.onerror = (err) => {
    state.error = err;
  };
  const t0 = now();
  await client.connect(transport);
  const initMs = now() - t0;
  const pid = transport.pid;

  return {
    label,
    client,
    pid,
    initMs,
    state,
    stderrTail: () => stderr,
    /** Calls a tool and throws on a tool error, so a broken workload cannot pass as fast. */
    async call(name, args, options) {
      const res = await client.callTool({ name, arguments: args }, options);
      if (res.isError) {
        const text = res.content?.map((c) => c.text ?? "").join(" ") ?? "";
        throw new Error(`${label} ${name}(${JSON.stringify(args)}) failed: ${text.slice(0, 300)}`);
      }
      return res;
    },
    async close() {
      await client.close().catch(() => {});
    },
  };
}

/**
 * The `sandbox` field of the pino line the server writes when a runner starts (`message`, e.g.
 * "sql_query enabled"); polled since stderr and stdout arrive independently.
 */
export async function sandboxOf(server, message) {
  for (let i = 0; i < 100; i++) {
    for (const line of server.stderrTail().split("\n")) {
      if (!line.includes(`"${message}"`)) continue;
      try {
        return JSON.parse(line).sandbox ?? "unknown";
      } catch {
        // A line cut by the tail window; keep looking.
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return "not logged";
}

/** Closes a session and ends its server by pid if a dead transport left it behind. */
export async function closeHard(server) {
  await server.close();
  if (peakRssBytes(server.pid) !== undefined) {
    try {
      process.kill(server.pid, "SIGKILL");
    } catch {
      // Gone between the check and the kill: nothing to clean up.
    }
  }
}

/** Fails early, with the list, when a server does not expose the tools the suite calls. */
export async function assertTools(server, required) {
  const { tools } = await server.client.listTools();
  const names = tools.map((t) => t.name);
  const missing = required.filter((r) => !names.includes(r));
  if (missing.length > 0) {
    throw new Error(`${server.label} lacks tools ${missing.join(", ")}; it has: ${names.join(", ")}`);
  }
  return names;
}

/** Peak resident set (VmHWM) of a live process in bytes, or undefined once it has exited. */
export function peakRssBytes(pid) {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) a live process has used, in ms. /proc/<pid>/stat counts in
 * USER_HZ ticks, 100 per second on every Linux ABI, so the resolution is 10 ms: measure
 * over enough calls for that to vanish.
 */
export function cpuTimeMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The pids of a live process and all its descendants (children of every thread, recursively). */
export function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks;
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue; // exited meanwhile
    }
    for (const tid of tasks) {
      try {
        const kids = readFileSync(`/proc/${out[i]}/task/${tid}/children`, "utf8").trim();
        if (kids) out.push(...kids.split(" ").map(Number));
      } catch {
        // the thread ended between the listing and the read
      }
    }
  }
  return out;
}

/**
 * Waits until a server and everything it started (e.g. textide's warm sandbox runner) use less than
 * `maxShare` of one core over `windowMs`, so steady-state rows do not measure start-up work that
 * the spawn row already covers. Returns the wait in ms; gives up after `maxMs`.
 */
export async function waitForIdle(pid, { windowMs = 250, maxShare = 0.05, maxMs = 20_000 } = {}) {
  const t0 = now();
  const treeCpu = () => processTree(pid).reduce((sum, p) => sum + (cpuTimeMs(p) ?? 0), 0);
  for (;;) {
    const c0 = treeCpu();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    if (treeCpu() - c0 <= windowMs * maxShare || now() - t0 > maxMs) return now() - t0;
  }
}

/** Text of a tool result's text blocks, joined. */
export function resultText(res) {
  return (res.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}
