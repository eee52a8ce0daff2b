import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHub } from "../../src/mcp/hub.js";
import { McpToolSet } from "../../src/mcp/tools.js";
import { fixtureSpec, recordingLog } from "../fixtures/mcp/servers.js";
import { byName, callTool, meta } from "./call.js";

const log = recordingLog();
let hub: McpHub;

beforeAll(async () => {
  hub = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, log);
  expect(await hub.connectAll()).toEqual([{ name: "kitchen", connected: true }]);
});
afterAll(() => hub.close());

const ALL = ["list_count", "add_tool", "delete_everything", "render_chart", "echo_meta", "environment", "slow"];

async function listCalls(set: McpToolSet): Promise<number> {
  const { text } = await callTool(byName(await set.tools(), "list_count"));
  return (JSON.parse(text) as { listCalls: number }).listCalls;
}

describe("tool discovery", () => {
  it("caches the tool list: a second tools() does not ask the server again", async () => {
    const set = new McpToolSet(hub, { log });
    const first = await set.tools();
    const before = await listCalls(set);
    const second = await set.tools();
    expect(second).toBe(first);
    expect(await listCalls(set)).toBe(before);
    expect(first.map((t) => t.name).sort()).toEqual([...ALL].sort());
  });

  it("refresh() asks again and picks up a tool registered at runtime", async () => {
    // Its own server: the tool it adds must not leak into the other tests.
    const own = new McpHub({ kitchen: fixtureSpec("kitchen-server") }, log);
    const set = new McpToolSet(own, { log });
    const { text: added } = await callTool(byName(await set.tools(), "add_tool"));
    expect(added).toMatch(/^added_\d+$/);
    // Cached: the new tool is not visible yet, and the server saw no new tools/list.
    const before = await listCalls(set);
    expect((await set.tools()).map((t) => t.name)).not.toContain(added);

    const refreshed = await set.refresh();
    expect(refreshed.map((t) => t.name)).toContain(added);
    expect(await listCalls(set)).toBe(before + 1);
    expect((await callTool(byName(refreshed, added))).text).toBe(added);
    await own.close();
  });

  it("a server that cannot start contributes no tools and a warning instead of failing discovery", async () => {
    const warnings = recordingLog();
    const broken = new McpHub({ gone: { command: "/nonexistent/textide-no-such-server" } }, warnings);
    expect(await new McpToolSet(broken, { log: warnings }).tools()).toEqual([]);
    expect(
      warnings.lines.filter((l) => l.level === "warn").map((l) => (l.obj as { server?: string }).server),
    ).toContain("gone");
    await broken.close();
  });
});

describe("tool filters", () => {
  const names = async (opts: Partial<ConstructorParameters<typeof McpToolSet>[1]>) =>
    (await new McpToolSet(hub, { log, ...opts }).tools()).map((t) => t.name).sort();

  it("only keeps the listed tools", async () => {
    expect(await names({ only: ["render_chart", "list_count", "no_such_tool"] })).toEqual([
      "list_count",
      "render_chart",
    ]);
  });

  it("except drops the listed tools", async () => {
    expect(await names({ except: ["delete_everything", "slow"] })).toEqual(
      ALL.filter((n) => n !== "delete_everything" && n !== "slow").sort(),
    );
  });

  it("a predicate sees the server, name, description and annotations (e.g. read-only tools only)", async () => {
    const seen: string[] = [];
    const readOnly = await names({
      predicate: (t) => {
        seen.push(`${t.server}/${t.name}`);
        expect(typeof t.description).toBe("string");
        return t.annotations?.readOnlyHint === true;
      },
    });
    expect(readOnly).toEqual(ALL.filter((n) => n !== "add_tool" && n !== "delete_everything").sort());
    expect(seen.sort()).toEqual(ALL.map((n) => `kitchen/${n}`).sort());
  });

  it("filters combine: only, then except, then the predicate", async () => {
    expect(
      await names({
        only: ["render_chart", "list_count", "delete_everything"],
        except: ["list_count"],
        predicate: (t) => t.annotations?.destructiveHint !== true,
      }),
    ).toEqual(["render_chart"]);
  });

  it("keeps annotations in the LangChain tool's metadata", async () => {
    const tools = await new McpToolSet(hub, { log }).tools();
    expect(meta(byName(tools, "delete_everything"))).toMatchObject({
      server: "kitchen",
      mcpName: "delete_everything",
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
  });
});

describe("description overrides", () => {
  it("replaces the server's description for the named tools and keeps the others", async () => {
    const tools = await new McpToolSet(hub, {
      log,
      descriptions: { slow: "Sleeps; only for tests.", unknown_tool: "ignored" },
    }).tools();
    expect(byName(tools, "slow").description).toBe("Sleeps; only for tests.");
    expect(byName(tools, "list_count").description).toBe("How many tools/list requests this server has answered.");
  });
});
