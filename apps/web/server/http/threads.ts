import type { ServerResponse } from "node:http";
import type { ModelResponse, ThreadResponse, ThreadsResponse } from "@textide/shared";
import { AppError } from "../errors.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { sendJson } from "./respond.js";

/** Shown by the UI next to the model: how to switch from the offline planner to an LLM. */
export const CONFIGURE_HINT =
  "textide uses the built-in offline planner (no LLM) unless a model is configured. Set ANTHROPIC_API_KEY " +
  "(Claude), OPENAI_API_KEY (OpenAI; with OPENAI_BASE_URL for an OpenAI-compatible endpoint) or OLLAMA_HOST " +
  "(a local Ollama), and optionally TEXTIDE_MODEL=provider:model (e.g. anthropic:claude-sonnet-4-5, " +
  "openai:gpt-4.1-mini, ollama:llama3.1, or offline), then restart the server.";

/** Thread ids are ours (UUIDs) or the client's; keep them to a sane, printable shape. */
const THREAD_ID = /^[\w.:-]{1,200}$/;

/** `GET /api/threads`: the signed-in user's threads, newest first, titled by their first request. */
export async function getThreads(runtime: AgentRuntime, user: string, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { threads: await runtime.threads(user) } satisfies ThreadsResponse);
}

/** `GET /api/threads/:id`: the thread's messages as a provider-neutral trace; another user's thread is a 404. */
export async function getThread(
  runtime: AgentRuntime,
  encodedId: string,
  user: string,
  res: ServerResponse,
): Promise<void> {
  let threadId: string;
  try {
    threadId = decodeURIComponent(encodedId);
  } catch {
    threadId = "";
  }
  if (!THREAD_ID.test(threadId)) throw new AppError(400, "bad_request", "Invalid thread id.");
  const messages = await runtime.history(threadId, user);
  if (!messages.some((m) => m.role !== "system")) throw new AppError(404, "not_found", `No thread ${threadId}.`);
  sendJson(res, 200, { threadId, messages } satisfies ThreadResponse);
}

/** `GET /api/model`: the model in use (the offline planner says so) and how to configure another. */
export function getModel(runtime: AgentRuntime, res: ServerResponse): Promise<void> {
  sendJson(res, 200, {
    ...runtime.model,
    approvals: runtime.approvalsEnabled,
    configureHint: CONFIGURE_HINT,
  } satisfies ModelResponse);
  return Promise.resolve();
}
