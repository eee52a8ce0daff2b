import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { CORRELATION_META_KEY } from "@textide/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHub } from "../../src/mcp/hub.js";
import { mapResult, McpToolSet } from "../../src/mcp/tools.js";
import { fixtureSpec, RED_PIXEL_PNG, recordingLog } from "../fixtures/mcp/servers.js";
import { byName, callTool } from "./call.js";

const log = recordingLog();
let cwd: string;
let hub: McpHub;
let tools: StructuredToolInterface[];

beforeAll(async () => {
  // Set in the test process only: a server inherits just the SDK's safe default variables (PATH, HOME, …).
  process.env.TEXTIDE_PARENT_ONLY = "must-not-leak";
  cwd = await realpath(await mkdtemp(path.join(os.tmpdir(), "textide-mcp-cwd-")));
  hub = new McpHub({ kitchen: { ...fixtureSpec("kitchen-server", { TEXTIDE_FIXTURE_VAR: "from-spec" }), cwd } }, log);
  tools = await new McpToolSet(hub, { log }).tools();
});
afterAll(async () => {
  delete process.env.TEXTIDE_PARENT_ONLY;
  await hub.close();
  await rm(cwd, { recursive: true, force: true });
});

describe("tool results", () => {
  it("an image comes back in artifact.images and the text mentions the attachment", async () => {
    const { text, artifact } = await callTool(byName(tools, "render_chart"), { title: "Sizes" });
    expect(artifact.images).toEqual([{ mimeType: "image/png", data: RED_PIXEL_PNG }]);
    expect(text).toContain('Rendered "Sizes".');
    expect(text).toContain("[1 image(s) attached]");
    // The model never reads base64.
    expect(text).not.toContain(RED_PIXEL_PNG);
    expect(artifact.isError).toBe(false);
  });

  it("structuredContent and embedded resources are carried in the artifact", async () => {
    const { text, artifact } = await callTool(byName(tools, "render_chart"), { title: "Sizes" });
    expect(artifact.structuredContent).toEqual({ title: "Sizes", width: 1, height: 1 });
    expect(artifact.resources).toEqual([
      { uri: "chart://spec.json", mimeType: "application/json", text: '{"mark":"bar"}' },
    ]);
    expect(text).toContain('{"mark":"bar"}');
  });
});

describe("correlation ids", () => {
  it("the run's correlationId reaches the server's _meta and the artifact", async () => {
    const { text, artifact } = await callTool(
      byName(tools, "echo_meta"),
      {},
      { configurable: { correlationId: "corr-42" } },
    );
    const { meta } = JSON.parse(text) as { meta: Record<string, unknown> };
    expect(meta[CORRELATION_META_KEY]).toBe("corr-42");
    expect(CORRELATION_META_KEY).toBe("io.textide/correlation-id");
    expect(artifact.correlationId).toBe("corr-42");
  });

  it("without one, each call gets a fresh id that the server and the artifact share", async () => {
    const first = await callTool(byName(tools, "echo_meta"));
    const second = await callTool(byName(tools, "echo_meta"));
    const sent = (r: typeof first) =>
      (JSON.parse(r.text) as { meta: Record<string, string> }).meta[CORRELATION_META_KEY];
    expect(first.artifact.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent(first)).toBe(first.artifact.correlationId);
    expect(sent(second)).toBe(second.artifact.correlationId);
    expect(second.artifact.correlationId).not.toBe(first.artifact.correlationId);
  });

  it("the correlation id is logged with the call", async () => {
    await callTool(byName(tools, "echo_meta"), {}, { configurable: { correlationId: "corr-logged" } });
    const logged = log.lines.find(
      (l) => l.msg === "tool call" && (l.obj as { correlationId?: string }).correlationId === "corr-logged",
    );
    expect(logged?.obj).toMatchObject({ server: "kitchen", tool: "echo_meta", isError: false });
  });
});

describe("stdio server environment", () => {
  it("a server's env extends the inherited safe environment instead of replacing it, and cwd is honoured", async () => {
    const { text } = await callTool(byName(tools, "environment"));
    expect(JSON.parse(text)).toEqual({ hasPath: true, custom: "from-spec", parentOnly: null, cwd });
  });
});

describe("mapResult", () => {
  it("maps text, images, resources and resource links; isError is kept", () => {
    const [text, artifact] = mapResult(
      {
        isError: true,
        content: [
          { type: "text", text: "first" },
          { type: "image", mimeType: "image/jpeg", data: "AAAA" },
          { type: "image", mimeType: "image/png", data: "BBBB" },
          { type: "resource", resource: { uri: "file:///x.bin", mimeType: "application/octet-stream", blob: "CCCC" } },
          { type: "resource_link", uri: "file:///y.txt", name: "y.txt" },
        ],
      },
      "s",
      "t",
      "c",
    );
    expect(text).toBe("first\nResource: file:///y.txt\n[2 image(s) attached]");
    expect(artifact).toEqual({
      server: "s",
      mcpName: "t",
      correlationId: "c",
      isError: true,
      images: [
        { mimeType: "image/jpeg", data: "AAAA" },
        { mimeType: "image/png", data: "BBBB" },
      ],
      resources: [{ uri: "file:///x.bin", mimeType: "application/octet-stream", blob: "CCCC" }],
    });
  });
});
