import type { BaseMessage } from "@langchain/core/messages";
import { codeStep, type CodeStep } from "./codegen.js";

/*
 * The planner keeps no memory: every call rebuilds "where are we" from the message list, so it
 * works with checkpoints, resumed threads and parallel runs. A turn is the last user request
 * and everything after it: the planner's own tool calls (AI messages) and their results (tool
 * messages, matched by tool_call_id).
 */

/** The bundled server's wire names, which the planner's logic is written against. */
export const WIRE = {
  search: "fs_search_files",
  list: "fs_list_directory",
  read: "fs_read_file",
  exec: "exec_run_js",
  open: "system_open_file",
} as const;
export type WireTool = (typeof WIRE)[keyof typeof WIRE];

export type StepKind = "search" | "list" | "read" | "open" | CodeStep | "other";

export interface StepResult {
  text: string;
  ok: boolean;
  structured?: Record<string, unknown>;
}

export interface Step {
  id: string;
  /** The bundled tool's wire name (undefined for a tool the planner does not know). */
  tool: WireTool | undefined;
  args: Record<string, unknown>;
  kind: StepKind;
  result?: StepResult;
}

export interface Turn {
  /** The user's request text. */
  request: string;
  /** Tool calls of this turn, in order, with their results when present. */
  steps: Step[];
  /** Tool calls in the whole thread, so new ids stay unique per thread. */
  toolCallCount: number;
  /** Files the planner charted or inspected in earlier turns, newest first (for follow-ups). */
  earlierFiles: string[];
  /** The user's earlier requests in this thread, newest first ("now as a bar chart" refers to them). */
  previousRequests: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A message's type without relying on class identity (messages may come from another copy of langchain). */
function typeOf(m: BaseMessage): string {
  const t = (m as { type?: unknown }).type;
  return typeof t === "string" ? t : typeof m.getType === "function" ? m.getType() : "";
}

/** The text of a message's content: a string, or the text blocks of a block list, joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof b === "string" ? b : isRecord(b) && typeof b.text === "string" ? b.text : ""))
      .filter((s) => s !== "")
      .join("\n");
  }
  return "";
}

interface RawCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

function toolCallsOf(m: BaseMessage): RawCall[] {
  const calls = (m as { tool_calls?: unknown }).tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls
    .filter((c): c is { id?: string; name: string; args?: unknown } => isRecord(c) && typeof c.name === "string")
    .map((c) => ({
      ...(typeof c.id === "string" ? { id: c.id } : {}),
      name: c.name,
      args: isRecord(c.args) ? c.args : {},
    }));
}

function stepKind(tool: WireTool | undefined, args: Record<string, unknown>): StepKind {
  switch (tool) {
    case WIRE.search:
      return "search";
    case WIRE.list:
      return "list";
    case WIRE.read:
      return "read";
    case WIRE.open:
      return "open";
    case WIRE.exec:
      return (typeof args.code === "string" ? codeStep(args.code) : undefined) ?? "other";
    default:
      return "other";
  }
}

/**
 * Rebuilds the current turn. `toWire` maps a model-facing tool name back to the bundled wire
 * name (adapters may prefix or rename tools).
 */
export function readTurn(messages: readonly BaseMessage[], toWire: (name: string) => WireTool | undefined): Turn {
  // The request is the last human message that does not directly follow a tool result: some
  // adapters move tool images into a user message placed right after the tool message.
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (typeOf(messages[i]!) !== "human") continue;
    const prev = i > 0 ? typeOf(messages[i - 1]!) : "";
    if (prev === "tool") continue;
    start = i;
    break;
  }
  let toolCallCount = 0;
  const earlierFiles: string[] = [];
  const previousRequests: string[] = [];
  for (let i = 0; i < Math.max(0, start); i++) {
    const m = messages[i]!;
    if (typeOf(m) === "human" && (i === 0 || typeOf(messages[i - 1]!) !== "tool"))
      previousRequests.unshift(textOf(m.content));
    if (typeOf(m) !== "ai") continue;
    for (const c of toolCallsOf(m)) {
      toolCallCount++;
      const wire = toWire(c.name);
      const code = typeof c.args.code === "string" ? c.args.code : "";
      if (wire === WIRE.exec) {
        const file =
          /readTable\("((?:[^"\\]|\\.)*)"/.exec(code)?.[1] ?? /const path = "((?:[^"\\]|\\.)*)"/.exec(code)?.[1];
        if (file && codeStep(code) !== "inspect") earlierFiles.unshift(JSON.parse(`"${file}"`) as string);
      }
    }
  }
  const request = start >= 0 ? textOf(messages[start]!.content) : "";
  const steps: Step[] = [];
  const byId = new Map<string, Step>();
  for (let i = start + 1; i < messages.length; i++) {
    const m = messages[i]!;
    const type = typeOf(m);
    if (type === "ai") {
      for (const c of toolCallsOf(m)) {
        toolCallCount++;
        const tool = toWire(c.name);
        const step: Step = { id: c.id ?? `unknown_${toolCallCount}`, tool, args: c.args, kind: stepKind(tool, c.args) };
        steps.push(step);
        if (c.id) byId.set(c.id, step);
      }
    } else if (type === "tool") {
      const id = (m as { tool_call_id?: unknown }).tool_call_id;
      const step = typeof id === "string" ? byId.get(id) : undefined;
      if (!step) continue;
      const artifact = (m as { artifact?: unknown }).artifact;
      const status = (m as { status?: unknown }).status;
      const isError = status === "error" || (isRecord(artifact) && artifact.isError === true);
      const structured =
        isRecord(artifact) && isRecord(artifact.structuredContent) ? artifact.structuredContent : undefined;
      step.result = { text: textOf(m.content), ok: !isError, ...(structured ? { structured } : {}) };
    }
  }
  return { request, steps, toolCallCount, earlierFiles, previousRequests };
}
