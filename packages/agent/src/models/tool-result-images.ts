import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isRecord } from "@textide/shared";
import type { ModelProvider } from "./config.js";

/**
 * Tool results may carry images (an MCP `image` content block, e.g. a rendered chart). The
 * providers disagree on where an image may appear, and LangChain passes ToolMessage content
 * through without fixing it:
 *
 * - Anthropic accepts images inside `tool_result`. But @langchain/anthropic 1.5 duplicates a
 *   legacy `{type:"image", source_type:"base64", mime_type, data}` block (the copy labelled
 *   image/jpeg), so blocks are normalised to `{type:"image_url", image_url:{url}}`.
 * - OpenAI Chat Completions (also "openai-compatible") rejects images in `role:"tool"` messages
 *   with a 400, and forwards a v1 `{type:"image", mimeType, data}` block verbatim (invalid).
 * - @langchain/ollama throws "Non string tool message content is not supported".
 *
 * For the last two, each image leaves its ToolMessage (which keeps its text plus a note) and is
 * re-sent in one user message placed right after the run of tool results it came from, so the
 * `assistant(tool_calls) → tool…` adjacency the APIs require is preserved.
 */
export function adaptToolResultImages(messages: readonly BaseMessage[], provider: ModelProvider): BaseMessage[] {
  if (provider === "offline") return [...messages];
  if (provider === "anthropic") {
    return messages.map((message) => (isToolMessage(message) ? normaliseToolImages(message) : message));
  }

  const out: BaseMessage[] = [];
  let pending: { toolCallId: string; name: string | undefined; images: ImageUrlBlock[] }[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const content: (TextBlock | ImageUrlBlock)[] = [];
    for (const entry of pending) {
      const who = entry.name ? `${entry.name} (${entry.toolCallId})` : entry.toolCallId;
      content.push({ type: "text", text: `Image${entry.images.length > 1 ? "s" : ""} returned by tool call ${who}:` });
      content.push(...entry.images);
    }
    out.push(new HumanMessage({ content }));
    pending = [];
  };

  for (const message of messages) {
    if (!isToolMessage(message)) {
      flush();
      out.push(message);
      continue;
    }
    const { text, images } = splitToolContent(message.content);
    if (images.length > 0) pending.push({ toolCallId: message.tool_call_id, name: message.name, images });
    const note = images.length > 0 ? `[${images.length} image(s) attached in the next user message]` : "";
    const flattened = [text, note].filter(Boolean).join("\n");
    out.push(
      typeof message.content === "string" && images.length === 0 ? message : rebuildToolMessage(message, flattened),
    );
  }
  flush();
  return out;
}

// Type aliases, not interfaces: LangChain's ContentBlock needs the implicit index signature.
type TextBlock = { type: "text"; text: string };
type ImageUrlBlock = { type: "image_url"; image_url: { url: string } };

function isToolMessage(message: BaseMessage): message is ToolMessage {
  return ToolMessage.isInstance(message);
}

function rebuildToolMessage(message: ToolMessage, content: string | (TextBlock | ImageUrlBlock)[]): ToolMessage {
  return new ToolMessage({
    content,
    tool_call_id: message.tool_call_id,
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(message.id !== undefined ? { id: message.id } : {}),
    ...(message.status !== undefined ? { status: message.status } : {}),
    artifact: message.artifact as unknown,
  });
}

function normaliseToolImages(message: ToolMessage): ToolMessage {
  if (typeof message.content === "string") return message;
  let changed = false;
  const content = message.content.map((block) => {
    const image = toImageUrlBlock(block);
    if (image && (block as { type?: unknown }).type !== "image_url") {
      changed = true;
      return image;
    }
    return block;
  });
  return changed ? rebuildToolMessage(message, content as (TextBlock | ImageUrlBlock)[]) : message;
}

function splitToolContent(content: ToolMessage["content"]): { text: string; images: ImageUrlBlock[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: ImageUrlBlock[] = [];
  for (const block of content) {
    const image = toImageUrlBlock(block);
    if (image) images.push(image);
    else if (isRecord(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (typeof block === "string") texts.push(block);
    else texts.push(`[unsupported ${isRecord(block) ? String(block.type) : typeof block} block omitted]`);
  }
  return { text: texts.join("\n"), images };
}

/** Any of LangChain's image block shapes (OpenAI-style, legacy v0 data block, v1 standard block) → image_url. */
export function toImageUrlBlock(block: unknown): ImageUrlBlock | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === "image_url") {
    const raw = block.image_url;
    const url = typeof raw === "string" ? raw : isRecord(raw) && typeof raw.url === "string" ? raw.url : undefined;
    return url ? { type: "image_url", image_url: { url } } : undefined;
  }
  if (block.type !== "image") return undefined;
  const mime = typeof block.mimeType === "string" ? block.mimeType : block.mime_type;
  const mimeType = typeof mime === "string" && mime ? mime : "image/png";
  const data = block.data instanceof Uint8Array ? Buffer.from(block.data).toString("base64") : block.data;
  if (typeof data === "string" && data && block.source_type !== "url") {
    return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } };
  }
  if (typeof block.url === "string" && block.url) return { type: "image_url", image_url: { url: block.url } };
  return undefined;
}
