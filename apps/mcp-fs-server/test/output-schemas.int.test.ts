import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { TOOL } from "@textide/shared";
import { connectStdioBinary } from "./helpers/serve.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

// Issue 14: strict clients (the MCP Inspector) warn on a property schema that validates nothing, such
// as `{}` for exec_run_js's `result`. Every schema node in every tool's outputSchema must say what it
// accepts.

const VALIDATION_KEYWORDS = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not", "properties", "items"];

type Schema = Record<string, unknown>;

/** JSON-pointer-ish paths of schema nodes that carry no validation keyword. */
function vagueNodes(schema: unknown, at: string): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [`${at} (not a schema object)`];
  const node = schema as Schema;
  const found = VALIDATION_KEYWORDS.some((k) => k in node) ? [] : [at];
  const children: [string, unknown][] = [];
  for (const key of ["properties", "$defs", "definitions", "patternProperties"] as const) {
    const map = node[key];
    if (map && typeof map === "object")
      for (const [name, child] of Object.entries(map as Schema)) children.push([`${at}/${key}/${name}`, child]);
  }
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"] as const) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => children.push([`${at}/${key}/${i}`, child]));
  }
  for (const key of ["items", "additionalProperties", "not"] as const) {
    const child = node[key];
    // `additionalProperties: false|true` is a boolean schema: a clear answer, not a vague one.
    if (child !== undefined && typeof child !== "boolean") children.push([`${at}/${key}`, child]);
  }
  return [...found, ...children.flatMap(([p, c]) => vagueNodes(c, p))];
}

let ws: TmpWorkspace;
let client: Client;

beforeAll(async () => {
  ws = await makeWorkspace({}, false);
  client = await connectStdioBinary(ws, "schema-check");
}, 30_000);
afterAll(async () => {
  await client.close();
  await ws.cleanup();
});

describe("output schemas", () => {
  it("the walker flags an empty property schema", () => {
    expect(vagueNodes({ type: "object", properties: { result: {}, ok: { type: "boolean" } } }, "#")).toEqual([
      "#/properties/result",
    ]);
  });

  it("every tool from tools/list (exec_run_js included) has one, and every node in it validates something", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain(TOOL.runJs);
    const problems = tools.flatMap((tool) =>
      tool.outputSchema ? vagueNodes(tool.outputSchema, tool.name) : [`${tool.name} has no outputSchema`],
    );
    expect(problems).toEqual([]);
  });
});
