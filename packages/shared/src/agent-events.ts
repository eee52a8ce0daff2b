import { z } from "zod";
import { errorCodeSchema } from "./errors.js";

/** The model in use, as shown to users (the offline planner is labelled as such). */
export const modelInfo = z.object({ id: z.string(), label: z.string(), offline: z.boolean() });

const base = { runId: z.string(), threadId: z.string() };

/**
 * What one tool call reports, as the agent's graph writes it; the run adds its ids and passes it on
 * unchanged to the socket. A new kind of tool report (e.g. progress) is one more shape here, listed in
 * `toolEvent` and `agentEvent`.
 */
const toolStart = {
  type: z.literal("tool_start"),
  callId: z.string(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
};
const toolEnd = {
  type: z.literal("tool_end"),
  callId: z.string(),
  name: z.string(),
  isError: z.boolean(),
  /** The start of the result's text. */
  summary: z.string(),
  durationMs: z.number(),
  /** Workspace paths of files the call produced. */
  outputs: z.array(z.string()),
};

/** How far a running call has got, as its MCP server reported it (`notifications/progress`). */
const toolProgress = {
  type: z.literal("tool_progress"),
  callId: z.string(),
  name: z.string(),
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
};

export const toolEvent = z.discriminatedUnion("type", [z.object(toolStart), z.object(toolProgress), z.object(toolEnd)]);
export type ToolEvent = z.infer<typeof toolEvent>;

/**
 * What an agent run reports while it streams: the web server forwards these over socket.io and
 * the CLI prints them. Validated at every process boundary.
 */
export const agentEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run_started"), ...base, model: modelInfo, input: z.string() }),
  z.object({ type: z.literal("token"), ...base, text: z.string() }),
  z.object({ ...base, ...toolStart }),
  z.object({ ...base, ...toolProgress }),
  z.object({ ...base, ...toolEnd }),
  z.object({
    type: z.literal("approval_required"),
    ...base,
    callId: z.string(),
    name: z.string(),
    args: z.record(z.string(), z.unknown()),
  }),
  z.object({
    type: z.literal("final"),
    ...base,
    text: z.string(),
    outputs: z.array(z.string()),
    stopReason: z.enum(["done", "recursion_limit", "cancelled", "awaiting_approval"]),
  }),
  z.object({ type: z.literal("error"), ...base, code: errorCodeSchema, message: z.string() }),
]);

export type AgentEvent = z.infer<typeof agentEvent>;
export type ModelInfo = z.infer<typeof modelInfo>;

/** A run exported as provider-neutral messages (JSON), e.g. for debugging or evaluation. */
export const traceMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.record(z.string(), z.unknown()) })),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
]);
export type TraceMessage = z.infer<typeof traceMessage>;
