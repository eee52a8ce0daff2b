import { describe, expect, it } from "vitest";
import {
  describeModel,
  normalizeOllamaHost,
  parseModelSpec,
  redactModelConfig,
  resolveModelConfig,
  type Env,
  type ModelConfig,
} from "../../src/models/config.js";

const ANTHROPIC_KEY = "sk-ant-TEST-anthropic-secret-0001";
const OPENAI_KEY = "sk-TEST-openai-secret-0002";

describe("resolveModelConfig", () => {
  const cases: { name: string; env: Env; cli?: string; expected: ModelConfig }[] = [
    { name: "nothing configured → offline planner", env: {}, expected: { provider: "offline" } },
    {
      name: "blank values count as unset",
      env: { ANTHROPIC_API_KEY: "  ", TEXTIDE_MODEL: "" },
      expected: { provider: "offline" },
    },
    {
      name: "ANTHROPIC_API_KEY → anthropic with its default model",
      env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      expected: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: ANTHROPIC_KEY },
    },
    {
      name: "OPENAI_API_KEY → openai with its default model",
      env: { OPENAI_API_KEY: OPENAI_KEY },
      expected: { provider: "openai", model: "gpt-4.1-mini", apiKey: OPENAI_KEY },
    },
    {
      name: "OPENAI_BASE_URL turns openai into openai-compatible",
      env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: "http://localhost:1234/v1" },
      expected: {
        provider: "openai-compatible",
        model: "gpt-4.1-mini",
        apiKey: OPENAI_KEY,
        baseUrl: "http://localhost:1234/v1",
      },
    },
    {
      name: "OPENAI_BASE_URL alone (keyless local server) → openai-compatible",
      env: { OPENAI_BASE_URL: "http://localhost:1234/v1" },
      expected: { provider: "openai-compatible", model: "gpt-4.1-mini", baseUrl: "http://localhost:1234/v1" },
    },
    {
      name: "OLLAMA_HOST → ollama with llama3.1, host shorthand expanded",
      env: { OLLAMA_HOST: "127.0.0.1:11434" },
      expected: { provider: "ollama", model: "llama3.1", baseUrl: "http://127.0.0.1:11434" },
    },
    {
      name: "Anthropic wins over OpenAI and Ollama when several are set",
      env: { OLLAMA_HOST: "localhost", OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      expected: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: ANTHROPIC_KEY },
    },
    {
      name: "TEXTIDE_MODEL provider:model picks the provider and its key",
      env: { TEXTIDE_MODEL: "openai:gpt-4.1", ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY },
      expected: { provider: "openai", model: "gpt-4.1", apiKey: OPENAI_KEY },
    },
    {
      name: "TEXTIDE_MODEL keeps an Ollama tag after the provider prefix",
      env: { TEXTIDE_MODEL: "ollama:llama3.1:8b" },
      expected: { provider: "ollama", model: "llama3.1:8b" },
    },
    {
      name: "TEXTIDE_MODEL provider alone uses that provider's default model",
      env: { TEXTIDE_MODEL: "anthropic", ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      expected: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: ANTHROPIC_KEY },
    },
    {
      name: "TEXTIDE_MODEL=offline beats available keys",
      env: { TEXTIDE_MODEL: "offline", ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      expected: { provider: "offline" },
    },
    {
      name: "TEXTIDE_MODEL openai-compatible:model reads OPENAI_BASE_URL",
      env: { TEXTIDE_MODEL: "openai-compatible:my-model", OPENAI_BASE_URL: "http://10.0.0.2:8000/v1" },
      expected: { provider: "openai-compatible", model: "my-model", baseUrl: "http://10.0.0.2:8000/v1" },
    },
    {
      name: "a bare TEXTIDE_MODEL id applies to the inferred provider",
      env: { TEXTIDE_MODEL: "claude-opus-4-1", ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      expected: { provider: "anthropic", model: "claude-opus-4-1", apiKey: ANTHROPIC_KEY },
    },
    {
      name: "--model provider:model overrides TEXTIDE_MODEL",
      env: { TEXTIDE_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      cli: "ollama:qwen2.5-coder",
      expected: { provider: "ollama", model: "qwen2.5-coder" },
    },
    {
      name: "--model bare id keeps the provider from TEXTIDE_MODEL",
      env: { TEXTIDE_MODEL: "openai:gpt-4.1", OPENAI_API_KEY: OPENAI_KEY },
      cli: "gpt-4.1-nano",
      expected: { provider: "openai", model: "gpt-4.1-nano", apiKey: OPENAI_KEY },
    },
    {
      name: "--model bare id keeps the inferred provider",
      env: { OLLAMA_HOST: "http://gpu-box:11434" },
      cli: "llama3.2:3b",
      expected: { provider: "ollama", model: "llama3.2:3b", baseUrl: "http://gpu-box:11434" },
    },
    {
      name: "--model offline switches the LLM off",
      env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      cli: "offline",
      expected: { provider: "offline" },
    },
    {
      name: "--model with no provider anywhere is matched by vendor prefix (the key check comes later)",
      env: {},
      cli: "claude-haiku-4-5",
      expected: { provider: "anthropic", model: "claude-haiku-4-5" },
    },
    {
      name: "ANTHROPIC_BASE_URL points anthropic at a proxy",
      env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: "https://llm-proxy.internal" },
      expected: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        apiKey: ANTHROPIC_KEY,
        baseUrl: "https://llm-proxy.internal",
      },
    },
  ];

  it.each(cases)("$name", ({ env, cli, expected }) => {
    expect(resolveModelConfig(env, cli === undefined ? undefined : { model: cli })).toEqual(expected);
  });

  it("never reads process.env", () => {
    process.env.TEXTIDE_MODEL = "anthropic:from-process-env";
    try {
      expect(resolveModelConfig({})).toEqual({ provider: "offline" });
    } finally {
      delete process.env.TEXTIDE_MODEL;
    }
  });

  it("rejects a bare model id it cannot place, suggesting provider:model", () => {
    expect(() => resolveModelConfig({}, { model: "mistral-large" })).toThrow(/provider:model/);
    expect(() => resolveModelConfig({ TEXTIDE_MODEL: "offline:foo" })).toThrow(/offline planner takes no model id/);
  });

  it("rejects a malformed base URL without echoing the key", () => {
    const attempt = () => resolveModelConfig({ OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: "not a url" });
    expect(attempt).toThrow(/baseUrl.*OPENAI_BASE_URL/);
    expect(errorMessage(attempt)).not.toContain(OPENAI_KEY);
  });
});

describe("parseModelSpec", () => {
  it("treats only known provider names as a prefix", () => {
    expect(parseModelSpec("anthropic:claude-sonnet-4-5")).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
    });
    expect(parseModelSpec("llama3.1:8b")).toEqual({ model: "llama3.1:8b" });
    expect(parseModelSpec("openai-compatible:")).toEqual({ provider: "openai-compatible" });
    expect(parseModelSpec("  ")).toEqual({});
  });
});

describe("normalizeOllamaHost", () => {
  it.each([
    [":11434", "http://127.0.0.1:11434"],
    ["gpu-box", "http://gpu-box:11434"],
    ["gpu-box:9000", "http://gpu-box:9000"],
    ["https://ollama.example.com", "https://ollama.example.com"],
    ["http://127.0.0.1:11434/", "http://127.0.0.1:11434"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeOllamaHost(input)).toBe(expected);
  });
});

describe("describeModel", () => {
  it("labels each provider by vendor and provider:model id", () => {
    expect(describeModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: ANTHROPIC_KEY })).toEqual({
      id: "anthropic:claude-sonnet-4-5",
      label: "Claude (anthropic:claude-sonnet-4-5)",
      offline: false,
    });
    expect(describeModel({ provider: "openai", model: "gpt-4.1-mini", apiKey: OPENAI_KEY }).label).toBe(
      "OpenAI (openai:gpt-4.1-mini)",
    );
    expect(describeModel({ provider: "ollama" }).label).toBe("Ollama (ollama:llama3.1)");
    expect(
      describeModel({ provider: "openai-compatible", model: "qwen", baseUrl: "http://localhost:1234/v1" }).label,
    ).toBe("OpenAI-compatible (openai-compatible:qwen) at http://localhost:1234/v1");
  });

  it("labels the offline planner", () => {
    expect(describeModel({ provider: "offline" })).toEqual({
      id: "offline",
      label: "Offline planner (no LLM)",
      offline: true,
    });
  });

  it("never shows the key, nor credentials or query strings in the base URL", () => {
    const cfg: ModelConfig = {
      provider: "openai-compatible",
      model: "m",
      apiKey: OPENAI_KEY,
      baseUrl: `https://user:${OPENAI_KEY}@gateway.example.com/v1?key=${OPENAI_KEY}`,
    };
    const { label, id } = describeModel(cfg);
    expect(label).not.toContain(OPENAI_KEY);
    expect(id).not.toContain(OPENAI_KEY);
    expect(label).toContain("https://gateway.example.com/v1 (redacted)");
  });
});

describe("redactModelConfig", () => {
  it("keeps everything useful for a log line except secrets", () => {
    const cfg: ModelConfig = {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: ANTHROPIC_KEY,
      baseUrl: `https://proxy.example.com?token=${ANTHROPIC_KEY}`,
      maxRetries: 1,
    };
    const redacted = redactModelConfig(cfg);
    expect(redacted).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: "[redacted]",
      baseUrl: "https://proxy.example.com (redacted)",
      maxRetries: 1,
    });
    expect(JSON.stringify(redacted)).not.toContain(ANTHROPIC_KEY);
    expect(redactModelConfig({ provider: "offline" })).toEqual({ provider: "offline" });
  });
});

function errorMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("expected a throw");
}
