import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI, ChatOpenAICompletions } from "@langchain/openai";
import { API_KEY_ENV, DEFAULT_MODELS, type ModelConfig } from "./config.js";

export interface ChatModelDeps {
  /** Builds the offline planner (no LLM) for `provider: "offline"`. */
  offline: () => BaseChatModel;
  /** Replaces the global `fetch` for every provider's HTTP client (tests, proxies). */
  fetch?: typeof fetch;
}

/** LangChain's own default is 6 retries with exponential backoff: far too slow to report a dead endpoint. */
export const DEFAULT_MAX_RETRIES = 2;

/**
 * Local OpenAI-compatible servers (LM Studio, llama.cpp, vLLM) often need no key, but the OpenAI SDK
 * refuses to build a client without one.
 */
const NO_KEY_PLACEHOLDER = "not-needed";

/**
 * Passed explicitly so that LangChain's env fallbacks (ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
 * OLLAMA_BASE_URL, LANGSMITH_GATEWAY) never override what `resolveModelConfig` decided.
 */
/**
 * ChatOpenAI is deliberately NOT given `streaming: true`:
 * - with it, a plain `invoke()` streams and then *estimates* usage with tiktoken, which downloads
 *   `https://tiktoken.pages.dev/js/<encoding>.json` through the global fetch (ignoring `deps.fetch`,
 *   retried 6 times with backoff: about a minute of hanging when offline);
 * - `streaming: false` is worse: it sets `disableStreaming`, so even `.stream()` stops streaming.
 * Left unset, `.stream()` and invocations with a streaming callback handler (LangGraph's "messages"
 * mode sets `lc_prefer_streaming`) stream with `stream_options.include_usage`; a bare `invoke()`
 * makes one non-streaming request with the exact usage.
 */
const OPENAI_STREAMING = { streamUsage: true } as const;

export const DEFAULT_BASE_URLS = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  ollama: "http://127.0.0.1:11434",
} as const;

/**
 * Builds the chat model for a resolved {@link ModelConfig}. Every network provider streams token by
 * token under `.stream()` and under LangGraph's "messages" stream mode (usage included), retries
 * `maxRetries` times (default 2), and honours `cfg.baseUrl` and `deps.fetch`, so all of them can be
 * pointed at a local server.
 *
 * Keys and URLs come from `cfg` only: each is passed explicitly so LangChain's silent fallbacks to
 * `process.env` never apply.
 */
export function createChatModel(cfg: ModelConfig, deps: ChatModelDeps): BaseChatModel {
  if (cfg.provider === "offline") return deps.offline();

  const model = cfg.model ?? DEFAULT_MODELS[cfg.provider];
  const maxRetries = cfg.maxRetries ?? DEFAULT_MAX_RETRIES;
  const temperature = cfg.temperature !== undefined ? { temperature: cfg.temperature } : {};

  switch (cfg.provider) {
    case "anthropic": {
      const apiKey = requireApiKey(cfg);
      return new ChatAnthropic({
        model,
        apiKey,
        maxRetries,
        streaming: true,
        ...temperature,
        anthropicApiUrl: cfg.baseUrl ?? DEFAULT_BASE_URLS.anthropic,
        // authToken: null stops the SDK adding `Authorization: Bearer $ANTHROPIC_AUTH_TOKEN` from the env.
        clientOptions: { authToken: null, ...(deps.fetch ? { fetch: deps.fetch } : {}) },
      });
    }
    case "openai": {
      const apiKey = requireApiKey(cfg);
      return new ChatOpenAI({
        model,
        apiKey,
        maxRetries,
        ...OPENAI_STREAMING,
        ...temperature,
        configuration: openAiClientOptions(cfg.baseUrl ?? DEFAULT_BASE_URLS.openai, deps.fetch),
      });
    }
    case "openai-compatible": {
      if (cfg.baseUrl === undefined) {
        throw new Error(
          "The openai-compatible provider needs the server's URL: set OPENAI_BASE_URL (e.g. http://localhost:1234/v1).",
        );
      }
      // Chat Completions only: ChatOpenAI silently switches some model ids ("codex", "gpt-5.x-pro") to
      // the Responses API, which compatible servers rarely implement.
      return new ChatOpenAICompletions({
        model,
        apiKey: cfg.apiKey ?? NO_KEY_PLACEHOLDER,
        maxRetries,
        ...OPENAI_STREAMING,
        ...temperature,
        configuration: openAiClientOptions(cfg.baseUrl, deps.fetch),
      });
    }
    case "ollama":
      return new ChatOllama({
        model,
        maxRetries,
        streaming: true,
        ...temperature,
        baseUrl: cfg.baseUrl ?? DEFAULT_BASE_URLS.ollama,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
  }
}

function openAiClientOptions(baseUrl: string, fetchImpl: typeof fetch | undefined) {
  return { baseURL: baseUrl, ...(fetchImpl ? { fetch: fetchImpl } : {}) };
}

function requireApiKey(cfg: ModelConfig): string {
  if (cfg.apiKey) return cfg.apiKey;
  const envVar = API_KEY_ENV[cfg.provider] ?? "the provider's API key";
  throw new Error(
    `The ${cfg.provider} provider needs an API key: set ${envVar}, or choose another model with TEXTIDE_MODEL / --model (e.g. "offline").`,
  );
}
