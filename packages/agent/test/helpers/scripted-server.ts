import { afterAll, beforeAll } from "vitest";
import { McpHub } from "../../src/mcp/hub.js";
import { McpToolSet } from "../../src/mcp/tools.js";
import { makeWorkspace, type Workspace } from "./bundled-server.js";

export const SCRIPTED_MODEL = { id: "scripted", label: "Scripted test model", offline: true };

const silent = { info: () => undefined, warn: () => undefined };

export interface BundledServer {
  readonly ws: Workspace;
  readonly toolSet: McpToolSet;
}

/**
 * One temp workspace and the bundled server over stdio for a whole test file, opened in beforeAll and
 * closed in afterAll. The fields are read through getters because they only exist once beforeAll ran.
 */
export function useBundledServer(): BundledServer {
  let ws: Workspace | undefined;
  let hub: McpHub | undefined;
  let toolSet: McpToolSet | undefined;
  beforeAll(async () => {
    ws = await makeWorkspace();
    hub = new McpHub({ textide: ws.spec }, silent);
    toolSet = new McpToolSet(hub, { log: silent });
  });
  afterAll(async () => {
    await hub?.close();
    await ws?.cleanup();
  });
  return {
    get ws() {
      if (!ws) throw new Error("useBundledServer: the workspace is only there inside tests (after beforeAll)");
      return ws;
    },
    get toolSet() {
      if (!toolSet) throw new Error("useBundledServer: the tool set is only there inside tests (after beforeAll)");
      return toolSet;
    },
  };
}
