import type { BaseMessage } from "@langchain/core/messages";
import { isRecord } from "@textide/shared";
import {
  WIRE,
  type PlannedStep,
  type Step,
  type StepKind,
  type StepMarker,
  type Turn,
  type WireTool,
} from "./types.js";

/*
 * The planner keeps no memory: every call rebuilds "where are we" from the message list, so it
 * works with checkpoints, resumed threads and parallel runs. A turn is the last user request
 * and everything after it: the planner's own tool calls (AI messages) and their results (tool
 * messages, matched by tool_call_id). Which step a planner-made call was comes from the marker
 * the planner stored beside it in the AI message (STEP_MARKERS_KEY), never from its arguments.
 */

/** The key in an AI message's additional_kwargs under which the planner keeps its calls' markers. */
export const STEP_MARKERS_KEY = "textide_planner_steps";

const PLANNED_STEPS: readonly PlannedStep[] = [
  "inspect",
  "describe",
  "preview",
  "chart",
  "rank",
  "schema",
  "values",
  "query",
];

/** The markers of an AI message's calls, by call id. */
function markersOf(m: BaseMessage): Map<string, StepMarker> {
  const out = new Map<string, StepMarker>();
  const raw = (m as { additional_kwargs?: Record<string, unknown> }).additional_kwargs?.[STEP_MARKERS_KEY];
  if (!isRecord(raw)) return out;
  for (const [id, v] of Object.entries(raw)) {
    if (!isRecord(v) || !PLANNED_STEPS.includes(v.step as PlannedStep)) continue;
    out.set(id, { step: v.step as PlannedStep, ...(typeof v.file === "string" ? { file: v.file } : {}) });
  }
  return out;
}

/** A message's type without relying on class identity (messages may come from another copy of langchain). */
function typeOf(m: BaseMessage): string {
  const t = (m as { type?: unknown }).type;
  return typeof t === "string" ? t : typeof m.getType === "function" ? m.getType() : "";
}

/** A user message right after a tool result that carries image blocks: that tool's images, not a request. */
function isToolImages(messages: readonly BaseMessage[], i: number): boolean {
  const content = messages[i]!.content;
  return (
    i > 0 &&
    typeOf(messages[i - 1]!) === "tool" &&
    Array.isArray(content) &&
    content.some((b) => isRecord(b) && (b.type === "image_url" || b.type === "image"))
  );
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

function stepKind(tool: WireTool | undefined, marker: StepMarker | undefined): StepKind {
  if (marker) return marker.step;
  switch (tool) {
    case WIRE.search:
      return "search";
    case WIRE.list:
      return "list";
    case WIRE.read:
      return "read";
    case WIRE.open:
      return "open";
    default:
      return "other";
  }
}

/**
 * Rebuilds the current turn. `toWire` maps a model-facing tool name back to the bundled wire
 * name (adapters may prefix or rename tools).
 */
export function readTurn(messages: readonly BaseMessage[], toWire: (name: string) => WireTool | undefined): Turn {
  // The request is the last human message that is not a tool's images: some adapters move tool
  // images into a user message placed right after the tool message. A request may follow a tool
  // result too (the cut-off result of a call a cancelled run left unfinished).
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (typeOf(messages[i]!) !== "human" || isToolImages(messages, i)) continue;
    start = i;
    break;
  }
  let toolCallCount = 0;
  const earlierFiles: string[] = [];
  const previousRequests: string[] = [];
  for (let i = 0; i < Math.max(0, start); i++) {
    const m = messages[i]!;
    if (typeOf(m) === "human" && !isToolImages(messages, i)) previousRequests.unshift(textOf(m.content));
    if (typeOf(m) !== "ai") continue;
    const markers = markersOf(m);
    for (const c of toolCallsOf(m)) {
      toolCallCount++;
      const marker = c.id === undefined ? undefined : markers.get(c.id);
      if (marker?.file !== undefined && marker.step !== "inspect") earlierFiles.unshift(marker.file);
    }
  }
  const request = start >= 0 ? textOf(messages[start]!.content) : "";
  const steps: Step[] = [];
  const byId = new Map<string, Step>();
  for (let i = start + 1; i < messages.length; i++) {
    const m = messages[i]!;
    const type = typeOf(m);
    if (type === "ai") {
      const markers = markersOf(m);
      for (const c of toolCallsOf(m)) {
        toolCallCount++;
        const tool = toWire(c.name);
        const marker = c.id === undefined ? undefined : markers.get(c.id);
        const step: Step = {
          id: c.id ?? `unknown_${toolCallCount}`,
          tool,
          args: c.args,
          kind: stepKind(tool, marker),
          ...(marker ? { marker } : {}),
        };
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
