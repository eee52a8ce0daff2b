import { randomUUID } from "node:crypto";
import type { CallToolResult, McpServer, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import { CORRELATION_META_KEY, MCP_LOG_EVENT } from "@textide/shared";
import { FsError, isFsError } from "@textide/shared/node";
import type { z } from "zod";
import type { ToolContext } from "./context.js";
import { listedSchema } from "./listed-schemas.js";
import { progressFor, type Progress } from "./progress.js";
import { REPLY_BUDGET_BYTES } from "./reply-budget.js";

type Content = CallToolResult["content"];

/** A successful tool outcome: structured data plus what a model reads. */
export interface ToolOutcome<T> {
  structured: T;
  /** Text for the model; for file bodies this is the payload itself (never repeated in `structured`). */
  text: string;
  /** Extra content blocks (images, embedded resources, notes). */
  extra?: Content;
  /** A failure the model should see as one (e.g. user code that threw), with full structured detail. */
  isError?: boolean;
}

export function toErrorResult(err: FsError, correlationId: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${err.code}: ${err.message}` }],
    _meta: { [CORRELATION_META_KEY]: correlationId, "io.textide/error-code": err.code },
  };
}

interface ToolSpec<I extends z.ZodType, O extends z.ZodType> {
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Omit<ToolAnnotations, "title">;
}

/**
 * Registers a tool with logging, a correlation id, and the error policy: FsError becomes an
 * `isError` result the model can act on; anything else is a bug, logged with its stack and
 * reported without internals.
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  server: McpServer,
  ctx: ToolContext,
  name: string,
  spec: ToolSpec<I, O>,
  /** `progress` reports how far a long call has got; it does nothing unless the client asked for progress. */
  handler: (
    args: z.output<I>,
    req: ServerContext,
    correlationId: string,
    progress: Progress,
  ) => Promise<ToolOutcome<z.output<O>>>,
): void {
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: listedSchema(spec.input, name, "input"),
      outputSchema: listedSchema(spec.output, name, "output"),
      annotations: { title: spec.title, openWorldHint: false, ...spec.annotations },
    },
    // The SDK has validated `args` against `spec.input` before calling us.
    (async (args: z.output<I>, req: ServerContext): Promise<CallToolResult> => {
      const started = performance.now();
      const given: unknown = req.mcpReq._meta?.[CORRELATION_META_KEY];
      const correlationId = typeof given === "string" && given.length <= 200 ? given : randomUUID();
      // `event` is what the web server's call log matches (packages/shared/src/mcp-log.ts), not `msg`.
      const logFields = { event: MCP_LOG_EVENT.toolCall, tool: name, correlationId, args: summarizeArgs(args) };
      try {
        // Sandbox workers start with the first tool call, not with the process: starting them (a second
        // or more of CPU) would compete with the client's handshake (see server.ts).
        ctx.exec?.pool.warm();
        ctx.sql?.pool.warm();
        ctx.python?.pool.warm();
        const outcome = await handler(args, req, correlationId, progressFor(req));
        ctx.log.info(
          { ...logFields, ms: round(performance.now() - started), outcome: outcome.isError ? "tool_error" : "ok" },
          "tool call",
        );
        const result: CallToolResult = {
          ...(outcome.isError ? { isError: true } : {}),
          content: [{ type: "text", text: outcome.text }, ...(outcome.extra ?? [])],
          structuredContent: outcome.structured,
          _meta: { [CORRELATION_META_KEY]: correlationId },
        };
        return withinBudget(result, name, correlationId);
      } catch (err) {
        const ms = round(performance.now() - started);
        if (isFsError(err)) {
          ctx.log.info({ ...logFields, ms, outcome: err.code }, "tool call");
          return toErrorResult(err, correlationId);
        }
        ctx.log.error({ ...logFields, ms, outcome: "internal", err }, "tool call failed unexpectedly");
        return toErrorResult(
          new FsError(
            "internal",
            `${name} failed unexpectedly (correlation id ${correlationId}); the server logged the details. Try again or use another tool.`,
          ),
          correlationId,
        );
      }
    }) as never,
  );
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The last guard on every reply: one that would not fit the message size every client accepts is
 * replaced by an error that says how to ask for less. Tools size their own replies (pages, caps);
 * this catches what they did not foresee.
 */
function withinBudget(result: CallToolResult, name: string, correlationId: string): CallToolResult {
  const size = Buffer.byteLength(JSON.stringify(result));
  if (size <= REPLY_BUDGET_BYTES) return result;
  return toErrorResult(
    new FsError(
      "too_large",
      `The ${name} reply would be ${size} bytes, more than the ${REPLY_BUDGET_BYTES} bytes one MCP message may carry for every client. Ask for less: a smaller page (maxBytes), a narrower path or query, or fewer outputs per run.`,
    ),
    correlationId,
  );
}

const SECRET_KEY = /token|secret|password|api[-_]?key|authorization/i;

/** Argument summary for logs: long strings (file contents, code) become their length; secrets are redacted. */
export function summarizeArgs(args: unknown): unknown {
  if (typeof args === "string") return args.length > 200 ? `<${args.length} chars>` : args;
  if (Array.isArray(args)) return args.length > 20 ? `<${args.length} items>` : args.map(summarizeArgs);
  if (args && typeof args === "object") {
    return Object.fromEntries(
      Object.entries(args).map(([k, v]) => [
        k,
        SECRET_KEY.test(k)
          ? "[redacted]"
          : k === "content" && typeof v === "string"
            ? `<${v.length} chars>`
            : summarizeArgs(v),
      ]),
    );
  }
  return args;
}
