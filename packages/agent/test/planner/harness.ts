import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
// The built server (apps/mcp-fs-server/dist, via its workspace package): the same code as src, and
// the sandbox runner it spawns lives in dist anyway. Importing src would put apps/ under this
// package's tsconfig rootDir.
import { createFsServer } from "@textide/mcp-fs-server";
import { OfflinePlanner } from "../../src/planner/offline-planner.js";
import { makeWorkspace, type Workspace } from "./workspace.js";

/*
 * Runs the offline planner end to end against the real MCP server, in-process: the loop a
 * LangGraph runner does (model → tools → model …), with tool results turned into ToolMessages
 * the way the agent's adapter does (text blocks joined, status, artifact with structuredContent).
 */

export interface Env {
  ws: Workspace;
  client: Client;
  planner: ReturnType<OfflinePlanner["bindTools"]>;
  close(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const ws = await makeWorkspace();
  const fs = await createFsServer({
    projectRoot: ws.project,
    assetsRoot: ws.assets,
    exec: { auditLog: ws.auditLog, sandbox: "auto" },
    logLevel: "silent",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(fs.factory, { transport: serverSide });
  const client = new Client({ name: "planner-test", version: "1.0.0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  const planner = new OfflinePlanner().bindTools(
    tools.map((t) => ({
      name: t.name,
      description: t.description ?? "",
      schema: t.inputSchema,
    })),
  );
  return {
    ws,
    client,
    planner,
    async close() {
      await client.close();
      await handle.close();
      await fs.close();
      await ws.cleanup();
    },
  };
}

export interface ToolCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  ok: boolean;
  text: string;
  structured?: Record<string, unknown>;
}

export interface RunResult {
  answer: string;
  calls: ToolCallRecord[];
  /** Paths written by exec_run_js calls (generated_assets/…). */
  outputs: string[];
  /** The `code` of every exec_run_js call, in order. */
  codes: string[];
  messages: BaseMessage[];
  ms: number;
}

/** Converts an MCP tool result into the ToolMessage the agent's adapter would produce. */
export function toToolMessage(
  id: string,
  name: string,
  result: { content?: unknown; structuredContent?: unknown; isError?: unknown },
): ToolMessage {
  const blocks = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  const text = blocks
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text!)
    .join("\n");
  const isError = result.isError === true;
  return new ToolMessage({
    tool_call_id: id,
    name,
    content: text,
    status: isError ? "error" : "success",
    artifact: {
      ...(result.structuredContent ? { structuredContent: result.structuredContent as Record<string, unknown> } : {}),
      isError,
    },
  });
}

/** planner.invoke → tool calls → ToolMessages → … until a final answer (max 12 model calls). */
export async function run(env: Env, request: string, history: BaseMessage[] = []): Promise<RunResult> {
  const started = performance.now();
  const messages: BaseMessage[] = [...history, new HumanMessage(request)];
  const calls: ToolCallRecord[] = [];
  for (let step = 0; step < 12; step++) {
    const ai = await env.planner.invoke(messages);
    messages.push(ai);
    const toolCalls = ai.tool_calls ?? [];
    if (toolCalls.length === 0) {
      const answer = typeof ai.content === "string" ? ai.content : JSON.stringify(ai.content);
      const outputs = calls.flatMap((c) =>
        c.name === "exec_run_js" && Array.isArray(c.structured?.outputs)
          ? (c.structured.outputs as { path: string }[]).map((o) => o.path)
          : [],
      );
      const codes = calls.filter((c) => c.name === "exec_run_js").map((c) => String(c.args.code));
      return { answer, calls, outputs, codes, messages, ms: performance.now() - started };
    }
    for (const tc of toolCalls) {
      let message: ToolMessage;
      try {
        const result = await env.client.callTool({ name: tc.name, arguments: tc.args });
        message = toToolMessage(tc.id!, tc.name, result);
      } catch (err) {
        message = new ToolMessage({
          tool_call_id: tc.id!,
          name: tc.name,
          content: String((err as Error).message),
          status: "error",
          artifact: { isError: true },
        });
      }
      messages.push(message);
      const artifact = message.artifact as { structuredContent?: Record<string, unknown> };
      calls.push({
        id: tc.id!,
        name: tc.name,
        args: tc.args,
        ok: message.status !== "error",
        text: message.content as string,
        ...(artifact.structuredContent ? { structured: artifact.structuredContent } : {}),
      });
    }
  }
  throw new Error(`no final answer after 12 steps: ${calls.map((c) => c.name).join(" → ")}`);
}
