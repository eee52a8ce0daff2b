import { randomUUID } from "node:crypto";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CORRELATION_META_KEY } from "@textide/shared";
import { classifyCallError, isAbortError, McpToolError } from "./errors.js";
import type { HubLogger, McpHub } from "./hub.js";
import { ToolNameMap } from "./tool-name.js";

/** What a tool call hands the graph besides the text the model reads. */
/** Where a tool call's progress reports go (`configurable.onToolProgress` of the call's config). */
export type ToolProgressSink = (p: { progress: number; total?: number; message?: string }) => void;

export interface ToolArtifact {
  server: string;
  mcpName: string;
  correlationId: string;
  isError: boolean;
  structuredContent?: Record<string, unknown>;
  images: { mimeType: string; data: string }[];
  resources: { uri: string; mimeType?: string; text?: string; blob?: string }[];
  /** Set when the call was served by a fallback server. */
  servedBy?: string;
}

export interface ToolInfo {
  server: string;
  name: string;
  description: string;
  annotations?: Record<string, unknown>;
}

export interface ToolSetOptions {
  /** Keep only these tools (MCP or model-facing names). */
  only?: string[];
  /** Drop these tools. */
  except?: string[];
  predicate?: (tool: ToolInfo) => boolean;
  /** Description overrides by MCP or model-facing name. */
  descriptions?: Record<string, string>;
  /** server → server to try when a call fails with a transport or protocol error. */
  fallback?: Record<string, string>;
  /** Called before a fallback; return false to fail instead. */
  beforeFallback?: (info: {
    server: string;
    fallback: string;
    tool: string;
    error: McpToolError;
  }) => boolean | void | Promise<boolean | void>;
  /** Per-call timeout. */
  timeoutMs?: number;
  /** Retries of a transport/protocol failure before falling back or failing (default 2). */
  retries?: number;
  backoffMs?: number;
  log: HubLogger;
}

/**
 * Turns the tools of every connected MCP server into LangChain tools: discovery (cached, with an
 * explicit refresh) and JSON-schema simplification come from @langchain/mcp-adapters; filtering,
 * description overrides, name mapping, error classes, retries, fallback, correlation ids and
 * content mapping are ours (the adapters do not provide them).
 */
export class McpToolSet {
  readonly names = new ToolNameMap();
  private cache: Promise<DynamicStructuredTool[]> | undefined;

  constructor(
    private readonly hub: McpHub,
    private readonly opts: ToolSetOptions,
  ) {}

  tools(): Promise<DynamicStructuredTool[]> {
    this.cache ??= this.discover().catch((err: unknown) => {
      this.cache = undefined;
      throw err;
    });
    return this.cache;
  }

  /** Forgets the cached tool lists and asks every server again. */
  refresh(): Promise<DynamicStructuredTool[]> {
    this.cache = undefined;
    return this.tools();
  }

  private async discover(): Promise<DynamicStructuredTool[]> {
    const out: DynamicStructuredTool[] = [];
    for (const server of this.hub.names) {
      let loaded: DynamicStructuredTool[];
      try {
        loaded = await loadMcpTools(server, await this.hub.client(server), { throwOnLoadError: false });
      } catch (err) {
        this.opts.log.warn({ server, err: (err as Error).message }, "MCP server unavailable; its tools are skipped");
        continue;
      }
      for (const t of loaded) {
        const info: ToolInfo = {
          server,
          name: t.name,
          description: t.description,
          annotations: (t.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations,
        };
        // Named before filtering: filters can use the model-facing name, and it never depends on the filters.
        const modelName = this.names.add(server, t.name, false);
        if (!this.keep(info, modelName)) continue;
        out.push(this.wrap(info, modelName, t.schema as Record<string, unknown>));
      }
    }
    return out;
  }

  private keep(info: ToolInfo, modelName: string): boolean {
    const { only, except, predicate } = this.opts;
    const listed = (names: string[]) => names.includes(info.name) || names.includes(modelName);
    if (only && !listed(only)) return false;
    if (except && listed(except)) return false;
    return predicate ? predicate(info) : true;
  }

  private wrap(info: ToolInfo, modelName: string, schema: Record<string, unknown>): DynamicStructuredTool {
    const description = this.opts.descriptions?.[info.name] ?? this.opts.descriptions?.[modelName] ?? info.description;
    return new DynamicStructuredTool({
      name: modelName,
      description,
      schema,
      responseFormat: "content_and_artifact",
      metadata: { server: info.server, mcpName: info.name, annotations: info.annotations },
      func: async (args: Record<string, unknown>, _run, config?: RunnableConfig) =>
        this.call(info.server, info.name, args, config),
    });
  }

  /** Calls a tool with retries and fallback; domain errors are returned as data, not thrown. */
  private async call(
    server: string,
    mcpName: string,
    args: Record<string, unknown>,
    config?: RunnableConfig,
  ): Promise<[string, ToolArtifact]> {
    const correlationId = (config?.configurable?.correlationId as string | undefined) ?? randomUUID();
    try {
      return await this.callWithRetries(server, server, mcpName, args, correlationId, config);
    } catch (err) {
      const fallback = this.opts.fallback?.[server];
      if (!(err instanceof McpToolError) || !fallback) throw err;
      if ((await this.opts.beforeFallback?.({ server, fallback, tool: mcpName, error: err })) === false) throw err;
      this.opts.log.warn({ server, fallback, tool: mcpName, correlationId, err: err.message }, "MCP call falls back");
      const [text, artifact] = await this.callWithRetries(fallback, server, mcpName, args, correlationId, config);
      return [text, { ...artifact, servedBy: fallback }];
    }
  }

  private async callWithRetries(
    server: string,
    origin: string,
    mcpName: string,
    args: Record<string, unknown>,
    correlationId: string,
    config?: RunnableConfig,
  ): Promise<[string, ToolArtifact]> {
    const retries = this.opts.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        const client = await this.hub.client(server);
        // With a sink (the graph's, per call) the request carries a progressToken and the server's reports flow to it.
        const onToolProgress = config?.configurable?.onToolProgress as ToolProgressSink | undefined;
        const result = (await client.callTool(
          { name: mcpName, arguments: args, _meta: { [CORRELATION_META_KEY]: correlationId } },
          undefined,
          {
            ...(config?.signal ? { signal: config.signal } : {}),
            ...(this.opts.timeoutMs ? { timeout: this.opts.timeoutMs } : {}),
            ...(onToolProgress
              ? {
                  onprogress: ({ progress, total, message }) =>
                    onToolProgress({
                      progress,
                      ...(total !== undefined ? { total } : {}),
                      ...(message !== undefined ? { message } : {}),
                    }),
                }
              : {}),
          },
        )) as CallToolResult;
        const mapped = mapResult(result, server, mcpName, correlationId);
        this.opts.log.info(
          {
            server,
            tool: mcpName,
            correlationId,
            ms: Math.round(performance.now() - started),
            isError: mapped[1].isError,
          },
          "tool call",
        );
        return mapped;
      } catch (err) {
        if (isAbortError(err) || config?.signal?.aborted) throw err;
        const errorClass = classifyCallError(err);
        const error = new McpToolError(
          errorClass,
          `${mcpName} on ${server} failed (${errorClass}): ${(err as Error).message}`,
          origin,
          mcpName,
          { cause: err },
        );
        this.opts.log.warn(
          { server, tool: mcpName, correlationId, attempt, errorClass, err: (err as Error).message },
          "tool call failed",
        );
        if (errorClass === "transport") await this.hub.reset(server);
        if (attempt >= retries) throw error;
        await sleep((this.opts.backoffMs ?? 200) * 2 ** attempt, config?.signal);
      }
    }
  }
}

/** MCP content → the text a model reads plus an artifact with everything else. */
export function mapResult(
  result: CallToolResult,
  server: string,
  mcpName: string,
  correlationId: string,
): [string, ToolArtifact] {
  const texts: string[] = [];
  const artifact: ToolArtifact = {
    server,
    mcpName,
    correlationId,
    isError: result.isError === true,
    images: [],
    resources: [],
  };
  for (const block of result.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "image") artifact.images.push({ mimeType: block.mimeType, data: block.data });
    else if (block.type === "resource") {
      const r = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      artifact.resources.push(r);
      if (typeof r.text === "string") texts.push(r.text);
    } else if (block.type === "resource_link") texts.push(`Resource: ${block.uri}`);
  }
  if (result.structuredContent) artifact.structuredContent = result.structuredContent;
  if (artifact.images.length > 0) texts.push(`[${artifact.images.length} image(s) attached]`);
  return [texts.join("\n"), artifact];
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(new Error("aborted"))), { once: true });
  });
}
