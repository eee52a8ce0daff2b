import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../src/models/config.js";
import { createChatModel } from "../../src/models/create-chat-model.js";
import { adaptToolResultImages, toImageUrlBlock } from "../../src/models/tool-result-images.js";
import { startFakeLlmServer, type FakeLlmServer } from "../fake-llm-server.js";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const DATA_URL = `data:image/png;base64,${PNG}`;
/** The three shapes an image can take in a ToolMessage. */
const IMAGE_SHAPES = {
  "image_url (mcp-adapters default)": { type: "image_url", image_url: { url: DATA_URL } },
  "legacy data block (mcp-adapters useStandardContentBlocks)": {
    type: "image",
    source_type: "base64",
    mime_type: "image/png",
    data: PNG,
  },
  "v1 standard block": { type: "image", mimeType: "image/png", data: PNG },
};

const TOOL_CALLS = [
  { id: "call_chart", name: "exec_run_js", args: { code: "plot()" }, type: "tool_call" as const },
  { id: "call_read", name: "fs_read_file", args: { path: "project_root/a.txt" }, type: "tool_call" as const },
];

function history(image: unknown): BaseMessage[] {
  return [
    new HumanMessage("Plot the sizes"),
    new AIMessage({ content: "", tool_calls: TOOL_CALLS }),
    new ToolMessage({
      tool_call_id: "call_chart",
      name: "exec_run_js",
      content: [{ type: "text", text: "chart rendered" }, image as { type: "image_url"; image_url: string }],
    }),
    new ToolMessage({ tool_call_id: "call_read", name: "fs_read_file", content: "hello" }),
  ];
}

describe("adaptToolResultImages", () => {
  it.each(Object.entries(IMAGE_SHAPES))(
    "OpenAI: moves a %s out of the tool result into a user message after the tool run",
    (_shape, image) => {
      const out = adaptToolResultImages(history(image), "openai");
      expect(out.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "human"]);
      expect(out[2]!.content).toBe("chart rendered\n[1 image(s) attached in the next user message]");
      expect((out[2] as ToolMessage).tool_call_id).toBe("call_chart");
      expect(out[3]!.content).toBe("hello");
      expect(out[4]!.content).toEqual([
        { type: "text", text: "Image returned by tool call exec_run_js (call_chart):" },
        { type: "image_url", image_url: { url: DATA_URL } },
      ]);
    },
  );

  it("flushes images before the next non-tool message, one user message per tool run", () => {
    const image = IMAGE_SHAPES["v1 standard block"];
    const messages = [...history(image), new AIMessage("Here is the chart."), new HumanMessage("thanks")];
    const out = adaptToolResultImages(messages, "ollama");
    expect(out.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "human", "ai", "human"]);
  });

  it("Anthropic: keeps images in the tool result, normalised to image_url", () => {
    const out = adaptToolResultImages(
      history(IMAGE_SHAPES["legacy data block (mcp-adapters useStandardContentBlocks)"]),
      "anthropic",
    );
    expect(out).toHaveLength(4);
    expect(out[2]!.content).toEqual([
      { type: "text", text: "chart rendered" },
      { type: "image_url", image_url: { url: DATA_URL } },
    ]);
  });

  it("leaves messages without images as they are", () => {
    const messages = [new HumanMessage("hi"), new ToolMessage({ tool_call_id: "x", content: "plain" })];
    for (const provider of ["openai", "anthropic", "ollama", "offline"] as const) {
      const out = adaptToolResultImages(messages, provider);
      expect(out).toEqual(messages);
      expect(out[1]).toBe(messages[1]);
    }
  });

  it("recognises binary v1 image data and URL images", () => {
    expect(toImageUrlBlock({ type: "image", mimeType: "image/jpeg", data: new Uint8Array([1, 2, 3]) })).toEqual({
      type: "image_url",
      image_url: { url: "data:image/jpeg;base64,AQID" },
    });
    expect(toImageUrlBlock({ type: "image", url: "https://example.com/a.png" })).toEqual({
      type: "image_url",
      image_url: { url: "https://example.com/a.png" },
    });
    expect(toImageUrlBlock({ type: "text", text: "no" })).toBeUndefined();
  });
});

describe("tool-result images on the wire", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(async () => {
    await server.close();
  });

  function model(provider: ModelConfig["provider"]): BaseChatModel {
    const baseUrl = provider === "openai" ? server.openaiBaseUrl : server.url;
    return createChatModel(
      { provider, model: "m", apiKey: "sk-test", baseUrl, maxRetries: 0 },
      {
        offline: () => {
          throw new Error("unused");
        },
      },
    );
  }

  async function send(provider: ModelConfig["provider"], messages: BaseMessage[]) {
    server.push({ text: "A bar chart." });
    for await (const _chunk of await model(provider).stream(messages)) {
      // drain
    }
    return (server.requests.at(-1)!.body as { messages: Record<string, unknown>[] }).messages;
  }

  it("without adaptation, OpenAI Chat Completions would get an image inside role:tool (a 400 upstream)", async () => {
    const sent = await send("openai", history(IMAGE_SHAPES["image_url (mcp-adapters default)"]));
    expect(sent[2]).toMatchObject({ role: "tool", content: [{ type: "text" }, { type: "image_url" }] });
  });

  it("OpenAI gets a text-only tool message followed by a user message carrying the image", async () => {
    const messages = adaptToolResultImages(history(IMAGE_SHAPES["v1 standard block"]), "openai");
    const sent = await send("openai", messages);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(sent[2]).toMatchObject({ role: "tool", tool_call_id: "call_chart" });
    expect(typeof sent[2]!.content).toBe("string");
    expect(sent[4]!.content).toContainEqual({ type: "image_url", image_url: { url: DATA_URL } });
  });

  it("Ollama gets the image as a user message's images[] instead of throwing", async () => {
    await expect(send("ollama", history(IMAGE_SHAPES["image_url (mcp-adapters default)"]))).rejects.toThrow(
      /Non string tool message content/,
    );
    const sent = await send("ollama", adaptToolResultImages(history(IMAGE_SHAPES["v1 standard block"]), "ollama"));
    expect(sent.filter((m) => m.role === "tool").every((m) => typeof m.content === "string")).toBe(true);
    expect(sent.at(-1)).toMatchObject({ role: "user", images: [PNG] });
  });

  it("Anthropic gets exactly one image/png inside the tool_result", async () => {
    const legacy = IMAGE_SHAPES["legacy data block (mcp-adapters useStandardContentBlocks)"];
    const raw = await send("anthropic", history(legacy));
    // @langchain/anthropic 1.5 duplicates a legacy block (the copy labelled image/jpeg)…
    expect(JSON.stringify(raw).match(/"type":"image"/g)).toHaveLength(2);
    // …which normalising to image_url avoids.
    const sent = await send("anthropic", adaptToolResultImages(history(legacy), "anthropic"));
    const results = sent[2]!.content as { type: string; tool_use_id: string; content: unknown }[];
    expect(results.map((r) => r.tool_use_id)).toEqual(["call_chart", "call_read"]);
    expect(results[0]!.content).toEqual([
      { type: "text", text: "chart rendered" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    ]);
  });
});
