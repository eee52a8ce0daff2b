import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OfflinePlanner, ToolNames, chunkText } from "../../src/planner/offline-planner.js";

/*
 * The model interface without a server: tool binding, ids, streaming, statelessness, and the
 * recovery paths, driven by hand-written tool results that follow the adapter's contract.
 */

const WIRE_TOOLS = ["fs_search_files", "fs_list_directory", "fs_read_file", "exec_run_js", "system_open_file"];
const spec = (name: string) => ({ name, description: name, schema: { type: "object", properties: {} } });
const bound = (names = WIRE_TOOLS) => new OfflinePlanner().bindTools(names.map(spec));

function toolResult(id: string, name: string, text: string, structured?: Record<string, unknown>, isError = false) {
  return new ToolMessage({
    tool_call_id: id,
    name,
    content: text,
    status: isError ? "error" : "success",
    artifact: { ...(structured ? { structuredContent: structured } : {}), isError },
  });
}

const TABLE = {
  path: "data/sales.csv",
  rows: 3,
  columns: [
    { name: "city", type: "text", count: 3, distinct: 3, examples: ["Oslo", "Rome", "Lima"] },
    {
      name: "revenue_eur",
      type: "number",
      count: 3,
      distinct: 3,
      min: 5,
      max: 30,
      integer: true,
      examples: [5, 10, 30],
    },
  ],
  sample: [{ city: "Oslo", revenue_eur: 5 }],
};

function execResult(id: string, result: unknown, outputs: { path: string; bytes: number; mime: string }[] = []) {
  return toolResult(id, "exec_run_js", `Result: ${JSON.stringify(result)}`, {
    ok: true,
    result,
    logs: "",
    logsTruncated: false,
    outputs,
    durationMs: 5,
  });
}

/** The first call's answer: fs_search_files found this one file. */
function searchFound(file: string) {
  return toolResult("call_1", "fs_search_files", "1 match", {
    matches: [{ path: file, root: "project_root", type: "file" }],
    truncated: false,
    scanned: 2,
  });
}

function execError(id: string, message: string) {
  return toolResult(
    id,
    "exec_run_js",
    `runtime error at line 3: ${message}`,
    {
      ok: false,
      logs: "",
      logsTruncated: false,
      outputs: [],
      error: { kind: "runtime", message, line: 3 },
      durationMs: 5,
    },
    true,
  );
}

const calls = (m: AIMessageChunk) => m.tool_calls ?? [];

/** Appends the planner's next message; returns it. */
async function step(model: ReturnType<typeof bound>, messages: BaseMessage[]): Promise<AIMessageChunk> {
  const ai = await model.invoke(messages);
  messages.push(ai);
  return ai;
}

describe("OfflinePlanner as a chat model", () => {
  it("identifies itself as the offline planner", () => {
    const p = new OfflinePlanner();
    expect(p._llmType()).toBe("offline-planner");
    expect(p.model).toBe("offline-planner");
  });

  it("answers nonsense with its capabilities and how to configure a model, without tool calls", async () => {
    const ai = await bound().invoke([new HumanMessage("make me a sandwich")]);
    expect(calls(ai)).toEqual([]);
    expect(ai.content).toContain("offline planner");
    expect(ai.content).toContain("TEXTIDE_MODEL=provider:model");
    expect(ai.response_metadata.model_name).toBe("offline-planner");
  });

  it("emits real tool calls with call_N ids and argument objects", async () => {
    const ai = await bound().invoke([new HumanMessage("bar chart of revenue by city")]);
    expect(ai.content).toBe("");
    expect(calls(ai)).toEqual([
      {
        id: "call_1",
        name: "fs_search_files",
        args: { query: "*.{csv,tsv,tab,xlsx,json,jsonl,ndjson}", limit: 1000 },
        type: "tool_call",
      },
    ]);
  });

  it("is stateless: the same messages give the same answer, on any instance, in any order", async () => {
    const a: BaseMessage[] = [new HumanMessage("bar chart of revenue by city")];
    const b: BaseMessage[] = [new HumanMessage("list the files in data")];
    const m = bound();
    const a1 = await m.invoke(a);
    const b1 = await m.invoke(b);
    const a2 = await bound().invoke(a);
    expect(a2.tool_calls).toEqual(a1.tool_calls);
    expect(calls(b1)[0]!.name).toBe("fs_search_files");
    expect(calls(b1)[0]!.args).toEqual({ query: "data" });
  });

  it("maps prefixed tool names (adapters may namespace them) both ways", async () => {
    const names = WIRE_TOOLS.map((n) => `textide__${n}`);
    const m = bound(names);
    const messages: BaseMessage[] = [new HumanMessage("bar chart of revenue by city")];
    const first = await step(m, messages);
    expect(calls(first)[0]!.name).toBe("textide__fs_search_files");
    messages.push(
      toolResult("call_1", "textide__fs_search_files", "1 match:\ndata/sales.csv", {
        matches: [{ path: "data/sales.csv", root: "project_root", type: "file" }],
        truncated: false,
        scanned: 4,
      }),
    );
    const second = await step(m, messages);
    expect(calls(second)[0]).toMatchObject({ id: "call_2", name: "textide__exec_run_js" });
    expect(String(calls(second)[0]!.args.code)).toMatch(/^\/\/ Inspect data\/sales\.csv/);
    expect(new ToolNames(["x.fs_read_file", "fs_search_files"]).modelName("fs_read_file")).toBe("x.fs_read_file");
  });

  it("reads tool results without structuredContent (text only) and content given as blocks", async () => {
    const m = bound();
    const messages: BaseMessage[] = [
      new HumanMessage("describe sales.csv"),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", name: "fs_search_files", args: { query: "sales.csv" } }],
      }),
    ];
    messages.push(
      new ToolMessage({
        tool_call_id: "call_1",
        name: "fs_search_files",
        content: [{ type: "text", text: '1 match for name "sales.csv":\ndata/sales.csv' }],
      }),
    );
    const ai = await step(m, messages);
    expect(String(calls(ai)[0]!.args.code)).toMatch(/^\/\/ Describe data\/sales\.csv/);
  });

  it("says so when a needed tool is not bound", async () => {
    const ai = await bound(["fs_search_files", "fs_read_file"]).invoke([
      new HumanMessage("bar chart of revenue by city"),
    ]);
    expect(calls(ai)).toEqual([]);
    expect(ai.content).toContain("exec_run_js tool is not available");
  });

  it("streams a final answer in several chunks that add up to the invoke() answer", async () => {
    const m = bound();
    const messages = [new HumanMessage("hello")];
    const chunks: string[] = [];
    for await (const c of await m.stream(messages)) chunks.push(c.text);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join("")).toBe((await m.invoke(messages)).content);
    expect(chunkText("a b c d e", 2)).toEqual(["a b ", "c d ", "e"]);
  });

  it("streams a tool call as tool_call_chunks that merge into the same tool call", async () => {
    let merged: AIMessageChunk | undefined;
    for await (const c of await bound().stream([new HumanMessage("list the files in data")]))
      merged = merged ? merged.concat(c) : c;
    expect(calls(merged!)).toEqual([
      { id: "call_1", name: "fs_search_files", args: { query: "data" }, type: "tool_call" },
    ]);
  });

  it("recovers from a failed chart: re-inspects on a missing column, retries once, then explains", async () => {
    const m = bound();
    const messages: BaseMessage[] = [new HumanMessage("bar chart of revenue by city")];
    await step(m, messages); // search
    messages.push(searchFound("data/sales.csv"));
    await step(m, messages); // inspect
    messages.push(execResult("call_2", { tables: [TABLE] }));
    const chart = await step(m, messages);
    const code = String(calls(chart)[0]!.args.code);
    expect(code).toMatch(/^\/\/ Chart/);
    expect(code).toContain('r["city"]');
    expect(code).toContain('r["revenue_eur"]');
    // The file changed under us: a column vanished → look again.
    messages.push(execError("call_3", "Column not found: revenue_eur. Columns are: city, amount"));
    const reinspect = await step(m, messages);
    expect(String(calls(reinspect)[0]!.args.code)).toMatch(/^\/\/ Inspect/);
    messages.push(execResult("call_4", { tables: [TABLE] }));
    const again = await step(m, messages);
    expect(String(calls(again)[0]!.args.code)).toMatch(/^\/\/ Chart/);
    messages.push(execError("call_5", "chart failed: something odd"));
    const retry = await step(m, messages);
    expect(String(calls(retry)[0]!.args.code)).toMatch(/^\/\/ Chart/);
    messages.push(execError("call_6", "chart failed: something odd"));
    const final = await step(m, messages);
    expect(calls(final)).toEqual([]);
    expect(final.content).toContain("could not be made");
    expect(final.content).toContain("something odd");
  });

  it("knows its past steps from the markers beside its calls, not from the code's text", async () => {
    const m = bound();
    const messages: BaseMessage[] = [new HumanMessage("bar chart of revenue by city")];
    await step(m, messages);
    messages.push(searchFound("data/sales.csv"));
    const inspect = await step(m, messages);
    expect(inspect.additional_kwargs.textide_planner_steps).toEqual({ call_2: { step: "inspect" } });
    // The code says nothing the planner reads back: rewriting it changes no decision.
    calls(inspect)[0]!.args.code = "return 1";
    messages.push(execResult("call_2", { tables: [TABLE] }));
    const chart = await step(m, messages);
    expect(String(calls(chart)[0]!.args.code)).toContain('r["revenue_eur"]');
    expect(chart.additional_kwargs.textide_planner_steps).toEqual({
      call_3: { step: "chart", file: "data/sales.csv" },
    });
    // Without its marker the same call is someone else's code: the planner inspects again.
    delete chart.additional_kwargs.textide_planner_steps;
    delete inspect.additional_kwargs.textide_planner_steps;
    const again = await step(m, messages);
    expect(again.additional_kwargs.textide_planner_steps).toEqual({ call_4: { step: "inspect" } });
  });

  it("does not rank with words of the question left out (no number for another question)", async () => {
    const m = bound();
    const messages: BaseMessage[] = [new HumanMessage("which city in the southern hemisphere has the most revenue?")];
    await step(m, messages);
    messages.push(searchFound("data/sales.csv"));
    await step(m, messages);
    messages.push(execResult("call_2", { tables: [TABLE] }));
    const final = await step(m, messages);
    expect(calls(final)).toEqual([]);
    expect(final.content).toContain('Could not map "southern", "hemisphere"');
    expect(final.content).not.toMatch(/Lima|30/);
  });

  it("compiles a transform to SQL run through sql_query, and says so when that tool is not bound", async () => {
    const withSql = bound([...WIRE_TOOLS, "sql_query"]);
    const messages: BaseMessage[] = [new HumanMessage("planets with more than 10 moons")];
    await step(withSql, messages);
    messages.push(searchFound("data/planets.csv"));
    const schema = await step(withSql, messages);
    expect(calls(schema)[0]).toMatchObject({
      name: "sql_query",
      args: { sql: "DESCRIBE SELECT * FROM 'data/planets.csv'" },
    });
    messages.push(
      toolResult("call_2", "sql_query", "2 rows", {
        columns: [
          { name: "column_name", type: "VARCHAR" },
          { name: "column_type", type: "VARCHAR" },
        ],
        rows: [
          ["Planet", "VARCHAR"],
          ["Moons", "BIGINT"],
        ],
        rowCount: 2,
        truncated: false,
        durationMs: 1,
        outputs: [],
      }),
    );
    const query = await step(withSql, messages);
    expect(calls(query)[0]!.args).toEqual({ sql: `SELECT * FROM 'data/planets.csv' WHERE "Moons" > 10` });
    expect(query.additional_kwargs.textide_planner_steps).toEqual({
      call_3: { step: "query", file: "data/planets.csv" },
    });

    const without = await bound().invoke([new HumanMessage("planets with more than 10 moons")]);
    expect(calls(without)).toEqual([]);
    expect(without.content).toContain("needs the sql_query tool");
  });

  it("answers from a successful chart call with the output path", async () => {
    const m = bound();
    const messages: BaseMessage[] = [new HumanMessage("bar chart of revenue by city")];
    await step(m, messages);
    messages.push(searchFound("data/sales.csv"));
    await step(m, messages);
    messages.push(execResult("call_2", { tables: [TABLE] }));
    const chart = await step(m, messages);
    expect(String(calls(chart)[0]!.args.code)).toContain('"revenue-eur-by-city-bar"');
    messages.push(
      execResult(
        "call_3",
        {
          chart: "generated_assets/revenue-eur-by-city-bar.png",
          points: 3,
          data: [
            { x: "Lima", value: 30 },
            { x: "Rome", value: 10 },
            { x: "Oslo", value: 5 },
          ],
        },
        [{ path: "generated_assets/revenue-eur-by-city-bar.png", bytes: 20000, mime: "image/png" }],
      ),
    );
    const final = await step(m, messages);
    expect(final.content).toMatch(
      /^Created generated_assets\/revenue-eur-by-city-bar\.png — bar chart of revenue_eur by city/,
    );
    expect(final.content).toContain("Lima (30), Rome (10), Oslo (5)");
  });

  it("runs inside a LangGraph ReAct agent (ToolNode, artifacts, streamed messages)", async () => {
    const seen: string[] = [];
    const search = tool(
      () => {
        seen.push("search");
        return [
          "1 match\ndata/sales.csv",
          {
            structuredContent: {
              matches: [{ path: "data/sales.csv", root: "project_root", type: "file" }],
              truncated: false,
              scanned: 2,
            },
            isError: false,
          },
        ];
      },
      {
        name: "fs_search_files",
        description: "search",
        schema: z.object({ query: z.string().optional(), limit: z.number().optional() }),
        responseFormat: "content_and_artifact",
      },
    );
    const exec = tool(
      ({ code }: { code: string }) => {
        seen.push(code.split("\n")[0]!);
        const result = code.startsWith("// Inspect")
          ? { tables: [TABLE] }
          : { chart: "generated_assets/x.png", points: 3, data: [{ x: "Lima", value: 30 }] };
        const outputs = code.startsWith("// Chart")
          ? [{ path: "generated_assets/revenue-eur-by-city-bar.png", bytes: 9000, mime: "image/png" }]
          : [];
        return [
          `Result: ${JSON.stringify(result)}`,
          {
            structuredContent: { ok: true, result, outputs, logs: "", logsTruncated: false, durationMs: 1 },
            isError: false,
          },
        ];
      },
      {
        name: "exec_run_js",
        description: "exec",
        schema: z.object({ code: z.string(), timeoutMs: z.number().optional() }),
        responseFormat: "content_and_artifact",
      },
    );
    const agent = createReactAgent({ llm: new OfflinePlanner(), tools: [search, exec] });
    const tokens: string[] = [];
    let last: BaseMessage[] = [];
    for await (const [mode, chunk] of await agent.stream(
      { messages: [new HumanMessage("bar chart of revenue by city")] },
      { streamMode: ["messages", "values"] },
    )) {
      if (mode === "messages") {
        const [msg] = chunk as unknown as [BaseMessage];
        if (msg.type === "ai" && msg.text) tokens.push(msg.text);
      } else {
        last = (chunk as { messages: BaseMessage[] }).messages;
      }
    }
    expect(seen[0]).toBe("search");
    expect(seen[1]).toMatch(/^\/\/ Inspect/);
    expect(seen[2]).toMatch(/^\/\/ Chart/);
    const answer = last[last.length - 1]!.text;
    expect(answer).toContain("generated_assets/revenue-eur-by-city-bar.png");
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join("")).toBe(answer);
  });
});
