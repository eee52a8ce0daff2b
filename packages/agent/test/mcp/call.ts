import type { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ToolArtifact } from "../../src/mcp/tools.js";

let seq = 0;

/** Invokes a tool the way the graph does (a tool call), returning the text the model reads and the artifact. */
export async function callTool(
  tool: StructuredToolInterface,
  args: Record<string, unknown> = {},
  config?: RunnableConfig,
): Promise<{ text: string; artifact: ToolArtifact }> {
  const message = (await tool.invoke(
    { type: "tool_call", id: `call-${++seq}`, name: tool.name, args },
    config,
  )) as ToolMessage;
  return { text: message.content as string, artifact: message.artifact as ToolArtifact };
}

/** The tool named `name` (model-facing) from a list, failing loudly if absent. */
export function byName(tools: StructuredToolInterface[], name: string): StructuredToolInterface {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool "${name}" among ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

/** What McpToolSet puts in a tool's metadata. */
export interface McpToolMeta {
  server: string;
  mcpName: string;
  annotations?: Record<string, unknown>;
}

export function meta(tool: StructuredToolInterface): McpToolMeta {
  return (tool as { metadata?: unknown }).metadata as McpToolMeta;
}

/** The tool whose MCP name (and optionally server) matches. */
export function byMcpName(tools: StructuredToolInterface[], mcpName: string, server?: string): StructuredToolInterface {
  const tool = tools.find((t) => {
    const m = meta(t);
    return m.mcpName === mcpName && (server === undefined || m.server === server);
  });
  if (!tool) throw new Error(`no tool with MCP name "${mcpName}"${server ? ` on ${server}` : ""}`);
  return tool;
}
