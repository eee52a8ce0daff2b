import { createRequire } from "node:module";
import path from "node:path";
import { bwrapWorks } from "./bwrap-probe.js";

export { bwrapWorks };

export type SandboxMode = "auto" | "bwrap" | "none";

export interface RunnerCommand {
  command: string;
  args: string[];
  /** What isolates the runner process from the OS, for logs and results. */
  sandbox: "bubblewrap" | "none";
}

/**
 * The process isolation every bubblewrap sandbox here starts with (exec_run_js, sql_query,
 * exec_run_python): new user, pid, network (only a loopback of its own), ipc, uts and cgroup
 * namespaces, killed with the server, a new session (no terminal to inject keystrokes into), the unprivileged uid/gid 65534, no capabilities.
 */
export const BWRAP_ISOLATION: readonly string[] = [
  "--unshare-all",
  "--die-with-parent",
  "--new-session",
  "--uid",
  "65534",
  "--gid",
  "65534",
  "--cap-drop",
  "ALL",
];

/**
 * The command that starts the runner: under bubblewrap when available (no network, no other
 * namespaces, read-only file system except generated_assets, unprivileged uid, no capabilities),
 * else plain node. isolated-vm is the primary boundary either way; this is defense in depth.
 */
export function runnerCommand(opts: {
  mode: SandboxMode;
  runnerPath: string;
  projectRoot: string;
  assetsRoot: string;
}): RunnerCommand {
  const node = [
    process.execPath,
    "--no-node-snapshot",
    opts.runnerPath,
    "--project",
    opts.projectRoot,
    "--assets",
    opts.assetsRoot,
  ];
  if (opts.mode === "none" || (opts.mode === "auto" && !bwrapWorks())) {
    return { command: node[0]!, args: node.slice(1), sandbox: "none" };
  }
  const ro = (p: string) => ["--ro-bind-try", p, p];
  const modules = path.dirname(path.dirname(createRequire(import.meta.url).resolve("isolated-vm/package.json")));
  const args = [
    ...BWRAP_ISOLATION,
    // Mounts apply in order: the scratch /tmp first, so the binds below may live under /tmp.
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    ...["/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache"].flatMap(ro),
    ...ro(path.dirname(process.execPath)),
    ...ro(path.dirname(modules)), // the workspace holding node_modules and the runner itself
    ...ro(path.dirname(path.dirname(opts.runnerPath))),
    ...ro(opts.projectRoot),
    "--bind",
    opts.assetsRoot,
    opts.assetsRoot,
    "--",
    ...node,
  ];
  return { command: "bwrap", args, sandbox: "bubblewrap" };
}
