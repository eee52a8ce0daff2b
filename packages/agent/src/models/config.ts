import { z } from "zod";

/**
 * Which LLM backs the agent. Resolved once from the environment (and a CLI `--model`) by
 * {@link resolveModelConfig}; turned into a LangChain chat model by `createChatModel`.
 */
export const MODEL_PROVIDERS = ["offline", "anthropic", "openai", "openai-compatible", "ollama"] as const;
export const ModelProviderSchema = z.enum(MODEL_PROVIDERS);
export type ModelProvider = z.infer<typeof ModelProviderSchema>;

export const ModelConfigSchema = z
  .object({
    provider: ModelProviderSchema,
    model: z.string().trim().min(1).optional(),
    apiKey: z.string().min(1).optional(),
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxRetries: z.number().int().min(0).max(10).optional(),
  })
  .strict();
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

/** Model used when the provider is known but no model id was given. */
export const DEFAULT_MODELS: Readonly<Record<Exclude<ModelProvider, "offline">, string>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4.1-mini",
  "openai-compatible": "gpt-4.1-mini",
  ollama: "llama3.1",
};

/** The env var that holds each provider's API key (used in error messages: never the key itself). */
export const API_KEY_ENV: Readonly<Partial<Record<ModelProvider, string>>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  "openai-compatible": "OPENAI_API_KEY",
};

export type Env = Readonly<Record<string, string | undefined>>;

const EXAMPLE_SPECS =
  "anthropic:claude-sonnet-4-5, openai:gpt-4.1-mini, ollama:llama3.1, openai-compatible:<model> or offline";

function isProvider(value: string): value is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(value);
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

interface ModelSpec {
  provider?: ModelProvider;
  model?: string;
}

/**
 * `provider:model`, `provider` alone, or a bare model id. Only a known provider name counts as a
 * prefix, so Ollama tags such as `llama3.1:8b` stay bare ids (and `ollama:llama3.1:8b` keeps its tag).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const trimmed = spec.trim();
  if (!trimmed) return {};
  const colon = trimmed.indexOf(":");
  const head = colon === -1 ? trimmed : trimmed.slice(0, colon);
  if (isProvider(head)) {
    const model = colon === -1 ? "" : trimmed.slice(colon + 1).trim();
    return model ? { provider: head, model } : { provider: head };
  }
  return { model: trimmed };
}

/** Which provider the credentials in `env` point at, in priority order. */
function inferProvider(env: Env): ModelProvider {
  if (read(env, "ANTHROPIC_API_KEY")) return "anthropic";
  if (read(env, "OPENAI_BASE_URL")) return "openai-compatible";
  if (read(env, "OPENAI_API_KEY")) return "openai";
  if (read(env, "OLLAMA_HOST")) return "ollama";
  return "offline";
}

/** With no credentials at all, a bare model id may still name its vendor. */
function guessProviderFromModel(model: string): ModelProvider | undefined {
  if (/^claude/i.test(model)) return "anthropic";
  if (/^(gpt-|chatgpt|o\d)/i.test(model)) return "openai";
  return undefined;
}

/**
 * OLLAMA_HOST uses the Ollama CLI's shorthand (`:11434`, `host`, `host:port`, or a full URL).
 * Expand it the way the `ollama` client does, so labels show the URL that is actually used.
 */
export function normalizeOllamaHost(host: string): string {
  let value = host.trim();
  let explicitProtocol = value.includes("://");
  if (value.startsWith(":")) {
    value = `http://127.0.0.1${value}`;
    explicitProtocol = true;
  }
  if (!explicitProtocol) value = `http://${value}`;
  const url = new URL(value);
  if (!url.port && !explicitProtocol) url.port = "11434";
  return url.toString().replace(/\/$/, "");
}

function baseUrlFor(provider: ModelProvider, env: Env): string | undefined {
  switch (provider) {
    case "anthropic":
      return read(env, "ANTHROPIC_BASE_URL");
    case "openai":
    case "openai-compatible":
      return read(env, "OPENAI_BASE_URL");
    case "ollama": {
      const host = read(env, "OLLAMA_HOST");
      return host ? normalizeOllamaHost(host) : undefined;
    }
    case "offline":
      return undefined;
  }
}

/**
 * Picks the model from an env object (never `process.env` directly: only the CLI's config reads that).
 *
 * - `TEXTIDE_MODEL` = `provider:model` | `provider` | bare model id | `offline`.
 * - Otherwise inferred: `ANTHROPIC_API_KEY` → anthropic; `OPENAI_BASE_URL` → openai-compatible;
 *   `OPENAI_API_KEY` → openai; `OLLAMA_HOST` → ollama; nothing → offline.
 * - `override.model` (CLI `--model`) wins: `provider:model` replaces both, a bare id keeps the provider.
 * - A bare id with no provider to attach to is matched by vendor prefix (`claude…`, `gpt-…`, `o3…`).
 *
 * Throws (without echoing any secret) when the request cannot be satisfied.
 */
export function resolveModelConfig(env: Env, override?: { model?: string }): ModelConfig {
  const fromEnv = parseModelSpec(read(env, "TEXTIDE_MODEL") ?? "");
  const fromCli = parseModelSpec(override?.model ?? "");

  let provider: ModelProvider | undefined;
  let model: string | undefined;
  if (fromCli.provider) {
    provider = fromCli.provider;
    model = fromCli.model;
  } else {
    provider = fromEnv.provider;
    model = fromCli.model ?? fromEnv.model;
  }
  provider ??= inferProvider(env);

  if (provider === "offline" && model !== undefined) {
    const explicitlyOffline = fromCli.provider === "offline" || (!fromCli.provider && fromEnv.provider === "offline");
    const guessed = explicitlyOffline ? undefined : guessProviderFromModel(model);
    if (!guessed) {
      const why = explicitlyOffline
        ? "the offline planner takes no model id"
        : "no provider is configured and the id does not name one";
      throw new Error(`Cannot use model "${model}": ${why}. Write it as provider:model (${EXAMPLE_SPECS}).`);
    }
    provider = guessed;
  }

  if (provider === "offline") return { provider: "offline" };

  const keyVar = API_KEY_ENV[provider];
  const candidate = {
    provider,
    model: model ?? DEFAULT_MODELS[provider],
    apiKey: keyVar ? read(env, keyVar) : undefined,
    baseUrl: baseUrlFor(provider, env),
  };
  const parsed = ModelConfigSchema.safeParse(stripUndefined(candidate));
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".")))].join(", ");
    const hint = fields.includes("baseUrl") ? " (check ANTHROPIC_BASE_URL / OPENAI_BASE_URL / OLLAMA_HOST)" : "";
    throw new Error(`Invalid model configuration for ${provider}: bad ${fields}${hint}.`);
  }
  return parsed.data;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** `provider:model`, or `offline`. Stable id for UIs, logs and `--model`. */
export function modelId(cfg: ModelConfig): string {
  if (cfg.provider === "offline") return "offline";
  return `${cfg.provider}:${cfg.model ?? DEFAULT_MODELS[cfg.provider]}`;
}

const VENDOR_LABEL: Readonly<Record<Exclude<ModelProvider, "offline">, string>> = {
  anthropic: "Claude",
  openai: "OpenAI",
  "openai-compatible": "OpenAI-compatible",
  ollama: "Ollama",
};

/** What a UI shows for the model. Never contains the API key (nor URL credentials). */
export function describeModel(cfg: ModelConfig): { id: string; label: string; offline: boolean } {
  const id = modelId(cfg);
  if (cfg.provider === "offline") return { id, label: "Offline planner (no LLM)", offline: true };
  const where = cfg.baseUrl ? ` at ${redactUrl(cfg.baseUrl)}` : "";
  return { id, label: `${VENDOR_LABEL[cfg.provider]} (${id})${where}`, offline: false };
}

/** Drops user:password and query strings (where some gateways put keys) from a URL for display. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const credentials = parsed.username || parsed.password;
    parsed.username = "";
    parsed.password = "";
    const hadQuery = parsed.search !== "";
    parsed.search = "";
    const shown = parsed.toString().replace(/\/$/, "");
    return credentials || hadQuery ? `${shown} (redacted)` : shown;
  } catch {
    return "[invalid url]";
  }
}

/** The config as it may be logged: the key becomes a marker, URL credentials are dropped. */
export function redactModelConfig(cfg: ModelConfig): Omit<ModelConfig, "apiKey"> & { apiKey?: "[redacted]" } {
  const { apiKey, baseUrl, ...rest } = cfg;
  return {
    ...rest,
    ...(baseUrl !== undefined ? { baseUrl: redactUrl(baseUrl) } : {}),
    ...(apiKey !== undefined ? { apiKey: "[redacted]" as const } : {}),
  };
}
