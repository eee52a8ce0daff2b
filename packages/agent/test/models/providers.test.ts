/**
 * The real @langchain/openai, @langchain/anthropic and @langchain/ollama code paths (and the SDKs
 * under them) against a local server that speaks each provider's streaming wire format.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { DynamicStructuredTool } from "@langchain/core/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelConfig } from "../../src/models/config.js";
import { createChatModel, type ChatModelDeps } from "../../src/models/create-chat-model.js";
import { startFakeLlmServer, type FakeEndpoint, type FakeLlmServer } from "../fake-llm-server.js";

const API_KEY = "sk-TEST-9f8e7d6c5b4a-never-leak";

const SEARCH_SCHEMA = {
  type: "object",
  properties: { query: { type: "string", description: "Text or regex to look for" } },
  required: ["query"],
  additionalProperties: false,
};
const READ_SCHEMA = {
  type: "object",
  properties: { path: { type: "string", description: "Workspace path, e.g. project_root/README.md" } },
  required: ["path"],
  additionalProperties: false,
};
/** Plain JSON-schema tool definitions, as the agent builds them from MCP `tools/list`. */
const TOOLS = [
  {
    type: "function" as const,
    function: { name: "fs_search_files", description: "Search file contents.", parameters: SEARCH_SCHEMA },
  },
  {
    type: "function" as const,
    function: { name: "fs_read_file", description: "Read a text file.", parameters: READ_SCHEMA },
  },
];
/** The same tools as @langchain/mcp-adapters produces them: StructuredTools with a JSON schema. */
const STRUCTURED_TOOLS = [
  new DynamicStructuredTool({
    name: "fs_search_files",
    description: "Search file contents.",
    schema: SEARCH_SCHEMA,
    func: () => Promise.resolve("unused"),
  }),
  new DynamicStructuredTool({
    name: "fs_read_file",
    description: "Read a text file.",
    schema: READ_SCHEMA,
    func: () => Promise.resolve("unused"),
  }),
];

const PARALLEL_CALLS = [
  { id: "call_search_1", name: "fs_search_files", args: { query: "TODO(textide)" } },
  { id: "call_read_2", name: "fs_read_file", args: { path: "project_root/docs/notes 2024.md" } },
];
const ANSWER = "The project has three packages, one app and a bench folder.";

interface ToolDef {
  name: string;
  description?: string;
  schema: unknown;
}

interface ProviderCase {
  provider: Exclude<ModelConfig["provider"], "offline">;
  endpoint: FakeEndpoint;
  model: string;
  apiKey?: string;
  baseUrl: (server: FakeLlmServer) => string;
  /** Stream events to let through before the server holds the response open (ends just past the first text token). */
  pauseAfter: number;
  /** Whether the provider returns tool-call ids (Ollama does not: LangChain makes up UUIDs). */
  providerIds: boolean;
  toolDefs: (body: unknown) => ToolDef[];
  temperature: (body: unknown) => unknown;
  /** The header that must carry the key, and its expected value. */
  auth?: { header: string; value: string };
}

type Body = Record<string, unknown> & { tools?: Record<string, unknown>[] };

const openAiToolDefs = (body: unknown): ToolDef[] =>
  ((body as Body).tools ?? []).map((t) => {
    const fn = t.function as { name: string; description?: string; parameters: unknown };
    return { name: fn.name, description: fn.description, schema: fn.parameters };
  });

const CASES: ProviderCase[] = [
  {
    provider: "openai",
    endpoint: "openai.chat",
    model: "gpt-4.1-mini",
    apiKey: API_KEY,
    baseUrl: (s) => s.openaiBaseUrl,
    pauseAfter: 3, // role chunk, "The ", "project "
    providerIds: true,
    toolDefs: openAiToolDefs,
    temperature: (body) => (body as Body).temperature,
    auth: { header: "authorization", value: `Bearer ${API_KEY}` },
  },
  {
    provider: "openai-compatible",
    endpoint: "openai.chat",
    model: "qwen2.5-coder-32b",
    apiKey: API_KEY,
    baseUrl: (s) => s.openaiBaseUrl,
    pauseAfter: 3,
    providerIds: true,
    toolDefs: openAiToolDefs,
    temperature: (body) => (body as Body).temperature,
    auth: { header: "authorization", value: `Bearer ${API_KEY}` },
  },
  {
    provider: "anthropic",
    endpoint: "anthropic.messages",
    model: "claude-sonnet-4-5",
    apiKey: API_KEY,
    baseUrl: (s) => s.anthropicBaseUrl,
    pauseAfter: 5, // message_start, ping, content_block_start, "The ", "project "
    providerIds: true,
    toolDefs: (body) =>
      ((body as Body).tools ?? []).map((t) => ({
        name: t.name as string,
        description: t.description as string,
        schema: t.input_schema,
      })),
    temperature: (body) => (body as Body).temperature,
    auth: { header: "x-api-key", value: API_KEY },
  },
  {
    provider: "ollama",
    endpoint: "ollama.chat",
    model: "llama3.1",
    baseUrl: (s) => s.ollamaBaseUrl,
    pauseAfter: 2, // "The ", "project "
    providerIds: false,
    toolDefs: openAiToolDefs,
    temperature: (body) => ((body as Body).options as Record<string, unknown> | undefined)?.temperature,
  },
];

const deps: ChatModelDeps = {
  offline: () => {
    throw new Error("offline planner must not be built for a network provider");
  },
};

function modelFor(c: ProviderCase, server: FakeLlmServer, extra: Partial<ModelConfig> = {}): BaseChatModel {
  return createChatModel(
    {
      provider: c.provider,
      model: c.model,
      baseUrl: c.baseUrl(server),
      maxRetries: 0,
      ...(c.apiKey ? { apiKey: c.apiKey } : {}),
      ...extra,
    },
    deps,
  );
}

async function collect(
  stream: AsyncIterable<AIMessageChunk>,
): Promise<{ chunks: AIMessageChunk[]; full: AIMessageChunk }> {
  const chunks: AIMessageChunk[] = [];
  let full: AIMessageChunk | undefined;
  for await (const chunk of stream) {
    chunks.push(chunk);
    full = full ? full.concat(chunk) : chunk;
  }
  if (!full) throw new Error("the stream produced no chunks");
  return { chunks, full };
}

/** `stream()` itself rejects when the request fails before the first chunk, so wrap both steps. */
async function streamAll(model: BaseChatModel, input: string) {
  return collect(await model.stream(input));
}

function bind(model: BaseChatModel, tools: Parameters<NonNullable<BaseChatModel["bindTools"]>>[0] = TOOLS) {
  return model.bindTools!(tools);
}

/** Like LangGraph's StreamMessagesHandler: asks chat models to stream even under invoke(). */
class TokenCollector extends BaseCallbackHandler {
  name = "token-collector";
  lc_prefer_streaming = true;
  tokens: string[] = [];
  override handleLLMNewToken(token: string): void {
    if (token) this.tokens.push(token);
  }
}

const VALID_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe.each(CASES)("$provider through the real LangChain client", (c) => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("streams a text answer token by token while the response is still open", async () => {
    server.push({ text: ANSWER, pauseAfterEvents: c.pauseAfter });
    const stream = await bind(modelFor(c, server)).stream("What is in this project?");
    const iterator = stream[Symbol.asyncIterator]();

    await server.paused();
    let first = "";
    while (!first) {
      const next = await iterator.next();
      if (next.done) throw new Error("stream ended before any text");
      first = next.value.text;
    }
    // A token reached the caller while the server still holds the rest of the response.
    expect(server.isPaused()).toBe(true);
    expect(first).toBe("The ");

    server.resume();
    const texts = [first];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (next.value.text) texts.push(next.value.text);
    }
    expect(texts.length).toBeGreaterThan(5);
    expect(texts.join("")).toBe(ANSWER);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.endpoint).toBe(c.endpoint);
  });

  it("streams tokens under invoke() when a callback handler prefers streaming (LangGraph's messages mode)", async () => {
    server.push({ text: ANSWER });
    const collector = new TokenCollector();
    const result = await bind(modelFor(c, server)).invoke("hi", { callbacks: [collector] });
    expect(result.text).toBe(ANSWER);
    expect(collector.tokens.join("")).toBe(ANSWER);
    expect(collector.tokens.length).toBeGreaterThan(5);
    expect((server.requests[0]!.body as Body).stream).toBe(true);
  });

  it("answers a plain invoke() with exact usage and no request anywhere but the configured server", async () => {
    server.push({ text: ANSWER, usage: { input: 50, output: 12 } });
    const elsewhere: string[] = [];
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith(server.url)) return realFetch(input, init);
      elsewhere.push(url);
      return Promise.reject(Object.assign(new Error(`blocked ${url}`), { status: 403 }));
    });
    try {
      const result = await bind(modelFor(c, server)).invoke("hi");
      expect(result.text).toBe(ANSWER);
      expect(result.usage_metadata?.input_tokens).toBe(50);
    } finally {
      spy.mockRestore();
    }
    // e.g. ChatOpenAI with `streaming: true` would fetch tiktoken ranks from tiktoken.pages.dev here.
    expect(elsewhere).toEqual([]);
    // Only OpenAI falls back to a non-streaming request; the others stream regardless.
    expect((server.requests[0]!.body as Body).stream ?? false).toBe(c.endpoint !== "openai.chat");
  });

  it("reassembles two parallel streamed tool calls into tool_calls with names, ids and parsed args", async () => {
    server.push({ text: "Let me look.", toolCalls: PARALLEL_CALLS });
    const { chunks, full } = await collect(await bind(modelFor(c, server)).stream("Find the TODOs"));

    expect(chunks.length).toBeGreaterThan(2);
    expect(full.text).toBe("Let me look.");
    expect(full.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual(
      PARALLEL_CALLS.map(({ name, args }) => ({ name, args })),
    );
    const ids = full.tool_calls!.map((call) => call.id);
    if (c.providerIds) expect(ids).toEqual(PARALLEL_CALLS.map((call) => call.id));
    else expect(new Set(ids).size).toBe(2); // made up by LangChain, but distinct
    expect(full.invalid_tool_calls ?? []).toEqual([]);
  });

  it("reads token usage from the stream", async () => {
    server.push({ text: "Short answer.", usage: { input: 321, output: 45 } });
    const { full } = await collect(await bind(modelFor(c, server)).stream("hi"));
    expect(full.usage_metadata?.input_tokens).toBe(321);
    // @langchain/anthropic adds message_start's output_tokens (1) to message_delta's running total.
    expect(full.usage_metadata?.output_tokens).toBe(c.provider === "anthropic" ? 46 : 45);
    expect(full.usage_metadata?.total_tokens).toBe(
      full.usage_metadata!.input_tokens + full.usage_metadata!.output_tokens,
    );
  });

  it("sends the bound tools as JSON-schema definitions with provider-valid names", async () => {
    server.push({ text: "ok" }, { text: "ok" });
    await collect(await bind(modelFor(c, server, { temperature: 0.2 })).stream("hi"));
    await collect(await bind(modelFor(c, server), STRUCTURED_TOOLS).stream("hi"));

    const [plain, structured] = server.requests.map((r) => c.toolDefs(r.body));
    expect(plain).toEqual([
      { name: "fs_search_files", description: "Search file contents.", schema: SEARCH_SCHEMA },
      { name: "fs_read_file", description: "Read a text file.", schema: READ_SCHEMA },
    ]);
    for (const def of plain!) expect(def.name).toMatch(VALID_TOOL_NAME);
    // MCP-style StructuredTools reach the wire with the same names and schemas.
    expect(structured!.map(({ name, schema }) => ({ name, schema }))).toEqual(
      plain!.map(({ name, schema }) => ({ name, schema })),
    );
    expect((server.requests[0]!.body as Body).model).toBe(c.model);
    expect(c.temperature(server.requests[0]!.body)).toBe(0.2);
    expect((server.requests[0]!.body as Body).stream).toBe(true);
  });

  it("accepts its own reassembled tool calls and the tool results as history", async () => {
    server.push({ toolCalls: PARALLEL_CALLS }, { text: "Found 3 TODOs." });
    const model = bind(modelFor(c, server));
    const history: BaseMessage[] = [new HumanMessage("Find the TODOs")];
    const { full } = await collect(await model.stream(history));
    history.push(full);
    for (const call of full.tool_calls!) {
      history.push(new ToolMessage({ tool_call_id: call.id!, name: call.name, content: `result of ${call.name}` }));
    }
    const { full: answer } = await collect(await model.stream(history));

    expect(answer.text).toBe("Found 3 TODOs.");
    const sent = server.requests[1]!.rawBody;
    expect(sent).toContain("result of fs_search_files");
    expect(sent).toContain("result of fs_read_file");
    if (c.providerIds) for (const call of PARALLEL_CALLS) expect(sent).toContain(call.id);
  });

  it("sends the API key only as its auth header", async () => {
    server.push({ text: "ok" });
    await collect(await bind(modelFor(c, server)).stream("hi"));
    const [request] = server.requests;
    if (c.auth) expect(request!.headers[c.auth.header]).toBe(c.auth.value);
    const otherHeaders = Object.entries(request!.headers).filter(([name]) => name !== c.auth?.header);
    expect(JSON.stringify(otherHeaders)).not.toContain(API_KEY);
    expect(request!.rawBody).not.toContain(API_KEY);
    expect(request!.url).not.toContain(API_KEY);
  });

  it("routes every request through an injected fetch", async () => {
    server.push({ text: "ok" });
    const seen: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      seen.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    };
    const cfg: ModelConfig = {
      provider: c.provider,
      model: c.model,
      baseUrl: c.baseUrl(server),
      maxRetries: 0,
      ...(c.apiKey ? { apiKey: c.apiKey } : {}),
    };
    await collect(await bind(createChatModel(cfg, { ...deps, fetch: recordingFetch })).stream("hi"));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain(server.url);
  });
});

describe("createChatModel", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("builds the offline planner through deps for provider offline", () => {
    const planner = {} as BaseChatModel;
    expect(createChatModel({ provider: "offline" }, { offline: () => planner })).toBe(planner);
  });

  it.each([
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["openai", "OPENAI_API_KEY"],
  ] as const)("refuses %s without a key, naming %s", (provider, envVar) => {
    expect(() => createChatModel({ provider }, deps)).toThrow(envVar);
  });

  it("refuses openai-compatible without a base URL, naming OPENAI_BASE_URL", () => {
    expect(() => createChatModel({ provider: "openai-compatible", model: "m" }, deps)).toThrow("OPENAI_BASE_URL");
  });

  it("lets a keyless openai-compatible server through with a placeholder key", async () => {
    server.push({ text: "hello from LM Studio" });
    const model = createChatModel(
      { provider: "openai-compatible", model: "local", baseUrl: server.openaiBaseUrl },
      deps,
    );
    const { full } = await collect(await model.stream("hi"));
    expect(full.text).toBe("hello from LM Studio");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer not-needed");
  });

  it("keeps openai-compatible on Chat Completions even for ids ChatOpenAI sends to the Responses API", async () => {
    server.push({ text: "ok" }, { text: "unused" });
    const cfg = { model: "my-codex-finetune", apiKey: API_KEY, baseUrl: server.openaiBaseUrl, maxRetries: 0 };
    await collect(await createChatModel({ provider: "openai-compatible", ...cfg }, deps).stream("hi"));
    expect(server.requests[0]!.url).toBe("/v1/chat/completions");

    // Plain "openai" follows ChatOpenAI's routing: "codex" ids go to POST /v1/responses.
    const viaChatOpenAI = createChatModel({ provider: "openai", ...cfg }, deps);
    await expect(streamAll(viaChatOpenAI, "hi")).rejects.toThrow(/404/);
    expect(server.requests[1]!.url).toBe("/v1/responses");
  });

  it("retries a server error maxRetries times, then streams the answer", async () => {
    server.push({ error: { status: 500, message: "upstream hiccup" } }, { text: "recovered" });
    const model = createChatModel(
      { provider: "openai", model: "gpt-4.1-mini", apiKey: API_KEY, baseUrl: server.openaiBaseUrl, maxRetries: 1 },
      deps,
    );
    const { full } = await collect(await model.stream("hi"));
    expect(full.text).toBe("recovered");
    expect(server.requests).toHaveLength(2);
  });

  it.each(["openai", "anthropic"] as const)(
    "%s fails fast on a 401 with an error that does not contain the key",
    async (provider) => {
      server.push({ error: { status: 401, message: "invalid x-api-key" } });
      const model = createChatModel(
        {
          provider,
          model: "m",
          apiKey: API_KEY,
          baseUrl: provider === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
        },
        deps,
      );
      const error = await streamAll(model, "hi").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain("invalid x-api-key");
      expect(`${(error as Error).message}\n${(error as Error).stack}`).not.toContain(API_KEY);
      expect(server.requests).toHaveLength(1); // 4xx is not retried even with the default maxRetries
    },
  );

  it("ignores ANTHROPIC_AUTH_TOKEN in process.env (no second credential header)", async () => {
    process.env.ANTHROPIC_AUTH_TOKEN = "env-token-should-not-be-sent";
    try {
      server.push({ text: "ok" });
      const model = createChatModel(
        { provider: "anthropic", apiKey: API_KEY, baseUrl: server.anthropicBaseUrl, maxRetries: 0 },
        deps,
      );
      await collect(await model.stream("hi"));
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
      expect(server.requests[0]!.headers["x-api-key"]).toBe(API_KEY);
    } finally {
      delete process.env.ANTHROPIC_AUTH_TOKEN;
    }
  });
});
