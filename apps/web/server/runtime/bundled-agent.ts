import {
  createAgent,
  McpHub,
  McpToolSet,
  type Agent,
  type AgentLogger,
  type AgentOptions,
  type ServerSpec,
  type ServerStatus,
} from "@textide/agent";
import { runtimeError } from "../errors.js";
import type { Logger } from "../log.js";

/** The MCP server name the bundled server is registered under (tool names are not prefixed by it). */
export const BUNDLED_SERVER = "textide";

export interface BundledAgentDeps {
  /** Read when the server is (re)spawned, so it may name things known only later (the listening port). */
  spec: () => ServerSpec;
  /** Everything the agent needs but its tools. */
  options: Omit<AgentOptions, "tools" | "log">;
  /** The agent's and the MCP client's log (warnings only reach the web server's log). */
  agentLog: AgentLogger;
  toolTimeoutMs: number;
  onStderr?: ((chunk: Buffer) => void) | undefined;
  log: Logger;
}

export interface BundledAgent {
  /** The agent over the bundled server's tools; (re)connects first when the server is not running. */
  ready(): Promise<Agent>;
  status(): ServerStatus[];
  close(): Promise<void>;
}

/** The agent over the bundled MCP server, started on first use and restarted when it has died. */
export function createBundledAgent(deps: BundledAgentDeps): BundledAgent {
  let hub: McpHub | undefined;
  let toolSet: McpToolSet | undefined;
  let agent: Agent | undefined;
  let preparing: Promise<Agent> | undefined;

  async function prepare(): Promise<Agent> {
    if (!hub || !toolSet) {
      const onStderr = deps.onStderr;
      const stderr = onStderr ? { onStderr: (_s: string, d: Buffer) => onStderr(d) } : {};
      hub = new McpHub({ [BUNDLED_SERVER]: deps.spec() }, deps.agentLog, stderr);
      toolSet = new McpToolSet(hub, { log: deps.agentLog, timeoutMs: deps.toolTimeoutMs });
    }
    const connected = hub.status().every((s) => s.connected);
    if (agent && connected) return agent;
    // First start, or the bundled server died: (re)connect, which respawns it, and rediscover its tools.
    const status = await hub.connectAll();
    const down = status.find((s) => !s.connected);
    if (down) throw runtimeError("unavailable", "mcp", `The MCP server "${down.name}" is unavailable: ${down.error}`);
    const tools = agent ? await toolSet.refresh() : await toolSet.tools();
    if (tools.length === 0) throw runtimeError("unavailable", "mcp", "The bundled MCP server offers no tools.");
    if (agent) deps.log.warn("bundled MCP server restarted", {});
    agent = createAgent({ ...deps.options, log: deps.agentLog, tools });
    return agent;
  }

  return {
    ready() {
      preparing ??= prepare().finally(() => (preparing = undefined));
      return preparing;
    },
    status: () => hub?.status() ?? [],
    async close() {
      await preparing?.catch(() => undefined);
      await hub?.close();
    },
  };
}
