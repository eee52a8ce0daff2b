import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHub } from "../../src/mcp/hub.js";
import { MODEL_TOOL_NAME, ToolNameMap } from "../../src/mcp/tool-name.js";
import { McpToolSet } from "../../src/mcp/tools.js";
import { fixtureSpec, LONG_NAME, recordingLog } from "../fixtures/mcp/servers.js";
import { byMcpName, byName, callTool, meta } from "./call.js";

const log = recordingLog();
const MCP_NAMES = ["files.read", "fs/write", "do thing", "a.b", "a/b", "echo", LONG_NAME];
let hub: McpHub;
let set: McpToolSet;
let tools: StructuredToolInterface[];

beforeAll(async () => {
  // The same server twice: every name collides between the two.
  hub = new McpHub(
    {
      alpha: fixtureSpec("names-server", { FIXTURE_LABEL: "alpha" }),
      beta: fixtureSpec("names-server", { FIXTURE_LABEL: "beta" }),
    },
    log,
  );
  set = new McpToolSet(hub, { log });
  tools = await set.tools();
});
afterAll(() => hub.close());

describe("tool name mapping", () => {
  it("gives every tool a valid, unique function name", () => {
    expect(tools).toHaveLength(2 * MCP_NAMES.length);
    for (const t of tools) expect(t.name, `${meta(t).server}/${meta(t).mcpName}`).toMatch(MODEL_TOOL_NAME);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it("keeps valid names, replaces invalid characters and shortens long names", () => {
    const mapped = Object.fromEntries(
      tools.filter((t) => meta(t).server === "alpha").map((t) => [meta(t).mcpName, t.name]),
    );
    expect(mapped["echo"]).toBe("echo");
    expect(mapped["files.read"]).toBe("files_read");
    expect(mapped["fs/write"]).toBe("fs_write");
    expect(mapped["do thing"]).toBe("do_thing");
    expect(mapped["a.b"]).toBe("a_b");
    // "a/b" also sanitizes to a_b: the second one gets the server prefix.
    expect(mapped["a/b"]).toBe("alpha_a_b");
    expect(mapped[LONG_NAME]).toHaveLength(64);
    expect(mapped[LONG_NAME]).toMatch(/^very_long_segment.*_[0-9a-f]{8}$/);
  });

  it("disambiguates a collision between two servers with the server name", () => {
    expect(byMcpName(tools, "echo", "beta").name).toBe("beta_echo");
    expect(byMcpName(tools, "files.read", "beta").name).toBe("beta_files_read");
    expect(byMcpName(tools, "a/b", "beta").name).toMatch(/^beta_a_b_[0-9a-f]{8}$/);
    expect(byMcpName(tools, LONG_NAME, "beta").name).not.toBe(byMcpName(tools, LONG_NAME, "alpha").name);
  });

  it("round-trips: calling a mapped tool reaches the original MCP tool on the right server", async () => {
    for (const t of tools) {
      const { server, mcpName } = meta(t);
      expect(set.names.resolve(t.name)).toEqual({ server, mcpName });
      const { text, artifact } = await callTool(t, { value: t.name });
      expect(JSON.parse(text)).toEqual({ label: server, tool: mcpName, args: { value: t.name } });
      expect(artifact).toMatchObject({ server, mcpName, isError: false });
    }
  });

  it("keeps the same names across a refresh", async () => {
    const before = tools.map((t) => t.name);
    expect((await set.refresh()).map((t) => t.name)).toEqual(before);
  });

  it("filters and description overrides accept model-facing names as well as MCP names", async () => {
    const filtered = await new McpToolSet(hub, {
      log,
      only: ["files_read", "beta_echo", "fs/write"],
      descriptions: { beta_echo: "Beta's echo.", "files.read": "Reads a file." },
    }).tools();
    // "fs/write" is an MCP name both servers have.
    expect(filtered.map((t) => t.name).sort()).toEqual(["beta_echo", "beta_fs_write", "files_read", "fs_write"]);
    expect(byName(filtered, "beta_echo").description).toBe("Beta's echo.");
    expect(byName(filtered, "files_read").description).toBe("Reads a file.");
    expect(byName(filtered, "fs_write").description).toBe('The tool called "fs/write".');

    const rest = await new McpToolSet(hub, { log, except: ["beta_echo", "do thing"] }).tools();
    expect(rest.map((t) => t.name)).not.toContain("beta_echo");
    expect(rest.map((t) => t.name)).toContain("echo");
    // An MCP name matches that tool on every server.
    expect(rest.map((t) => t.name)).not.toContain("do_thing");
    expect(rest.map((t) => t.name)).not.toContain("beta_do_thing");
  });

  it("a tool's name does not depend on which other tools are filtered out", async () => {
    // Without alpha's echo, beta's echo is still beta_echo: names do not shift under a filter.
    const betaOnly = await new McpToolSet(hub, { log, predicate: (t) => t.server === "beta" }).tools();
    expect(byMcpName(betaOnly, "echo", "beta").name).toBe("beta_echo");
  });
});

describe("ToolNameMap", () => {
  it("is idempotent per server and tool, and resolves unknown names to undefined", () => {
    const map = new ToolNameMap();
    expect(map.add("s", "x.y", false)).toBe("x_y");
    expect(map.add("s", "x.y", false)).toBe("x_y");
    expect(map.add("t", "x.y", true)).toBe("t_x_y");
    expect(map.resolve("nope")).toBeUndefined();
  });

  it("maps names made only of invalid characters to a valid name", () => {
    const map = new ToolNameMap();
    const a = map.add("s", "...", false);
    const b = map.add("s", "///", false);
    for (const n of [a, b]) expect(n).toMatch(MODEL_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(map.resolve(b)).toEqual({ server: "s", mcpName: "///" });
  });

  it("keeps a hashed fallback within 64 characters even for a long server name", () => {
    const map = new ToolNameMap();
    const server = "a-very-long-server-name-".repeat(4);
    const names = ["t.1", "t/1", "t 1"].map((n) => map.add(server, n, false));
    for (const n of names) expect(n).toMatch(MODEL_TOOL_NAME);
    expect(new Set(names).size).toBe(3);
  });
});
