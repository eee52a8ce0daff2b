import { spawn, spawnSync } from "node:child_process";

// Whether bubblewrap exists and may create namespaces here (containers often forbid it): it decides
// exec_run_js's sandbox and whether exec_run_python is offered at all, so the server needs the answer
// before it lists its tools. Asking takes a bwrap process (20-40 ms on a busy machine). The bin starts
// the probe first thing (index.ts), so it runs on another core while the server's modules load.

const PROBE = ["--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "true"];
const TIMEOUT_MS = 5000;

let answer: boolean | undefined;
let pending: Promise<boolean> | undefined;

/** Starts the probe in the background (once); resolves with its answer. */
export function probeBwrap(): Promise<boolean> {
  if (answer !== undefined) return Promise.resolve(answer);
  pending ??= new Promise<boolean>((resolve) => {
    const child = spawn("bwrap", PROBE, { stdio: "ignore", timeout: TIMEOUT_MS });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  }).then((works) => (answer ??= works));
  return pending;
}

/** The probe's answer; waits for it with a blocking spawn if no probe has finished yet. */
export function bwrapWorks(): boolean {
  answer ??= spawnSync("bwrap", PROBE, { stdio: "ignore", timeout: TIMEOUT_MS }).status === 0;
  return answer;
}
