import { pythonUnavailable } from "../../src/exec-python/sandbox-command.js";
import { makeWorkspace } from "./tmp-root.js";

/**
 * Why exec_run_python cannot run on this machine (no sandbox, no interpreter), or undefined when it
 * can: the Python suites skip themselves with this reason instead of failing where Python is absent.
 */
export async function pythonUnavailableHere(): Promise<string | undefined> {
  const ws = await makeWorkspace({}, false);
  try {
    // Awaited here: the check runs a sandbox over this workspace, which `finally` removes.
    return await pythonUnavailable({ projectRoot: ws.project, assetsRoot: ws.assets });
  } finally {
    await ws.cleanup();
  }
}
