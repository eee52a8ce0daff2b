import { createHash } from "node:crypto";

/** What OpenAI and Anthropic accept as a function name. */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Maps MCP tool names (which may contain dots, slashes, spaces or be long) to valid, unique
 * function names and back. Names that are already valid and unique pass through unchanged.
 */
export class ToolNameMap {
  private readonly toModel = new Map<string, string>();
  private readonly fromModel = new Map<string, { server: string; mcpName: string }>();

  /** Registers a tool; `prefix` (the server name) is used only when needed for uniqueness. */
  add(server: string, mcpName: string, prefix: boolean): string {
    const key = `${server}\u0000${mcpName}`;
    const existing = this.toModel.get(key);
    if (existing) return existing;
    let name = sanitize(prefix ? `${server}_${mcpName}` : mcpName);
    if (this.fromModel.has(name)) name = sanitize(`${server}_${mcpName}`);
    if (this.fromModel.has(name)) name = withHash(name, key);
    this.toModel.set(key, name);
    this.fromModel.set(name, { server, mcpName });
    return name;
  }

  resolve(modelName: string): { server: string; mcpName: string } | undefined {
    return this.fromModel.get(modelName);
  }
}

function sanitize(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "tool";
  return cleaned.length <= 64 ? cleaned : withHash(cleaned, name);
}

function withHash(name: string, seed: string): string {
  const hash = createHash("sha256").update(seed).digest("hex").slice(0, 8);
  return `${name.slice(0, 55)}_${hash}`;
}
