/**
 * NodeSqliteSaver under real LangGraph graphs (no model): state and history survive a "restart" — close the saver,
 * open a new one on the same file, compile a new graph — including interrupts resumed with `Command`, failed
 * supersteps whose successful writes must not be redone, subgraph namespaces and delta channels.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import {
  Annotation,
  Command,
  END,
  MessagesAnnotation,
  MessagesDeltaValue,
  START,
  StateGraph,
  StateSchema,
  interrupt,
  type StateSnapshot,
} from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeSqliteSaver } from "../../src/checkpoint/sqlite-saver.js";

let dir: string;
let file: string;
const opened: NodeSqliteSaver[] = [];

/** Opens a saver on the test's file; every saver is closed after the test even when an assertion fails. */
function openSaver(): NodeSqliteSaver {
  const saver = NodeSqliteSaver.open(file);
  opened.push(saver);
  return saver;
}

/** Simulates a process restart: close the saver (and forget the graph), then open a fresh one on the same file. */
function restart(saver: NodeSqliteSaver): NodeSqliteSaver {
  saver.close();
  return openSaver();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "textide-checkpoint-"));
  file = join(dir, "nested", "state", "threads.sqlite");
});

afterEach(() => {
  for (const saver of opened.splice(0)) saver.close();
  rmSync(dir, { recursive: true, force: true });
});

const thread = (threadId: string) => ({ configurable: { thread_id: threadId } });

async function history(graph: { getStateHistory: (c: object) => AsyncIterable<StateSnapshot> }, threadId: string) {
  const snapshots: StateSnapshot[] = [];
  for await (const snapshot of graph.getStateHistory(thread(threadId))) snapshots.push(snapshot);
  return snapshots;
}

const summary = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.content]);

/** `StateSnapshot.values` is untyped: read the fields these tests use. */
const messagesOf = (snapshot: StateSnapshot): BaseMessage[] =>
  (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
const checkpointIdOf = (snapshot: StateSnapshot) => snapshot.config.configurable?.checkpoint_id as string | undefined;
const valuesOf = (snapshot: StateSnapshot) => snapshot.values as Record<string, unknown>;
/** The interrupts an `invoke` result carries (LangGraph adds `__interrupt__` when the run paused). */
const interruptsOf = (result: object): { value: unknown }[] =>
  (result as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];

describe("NodeSqliteSaver with a MessagesAnnotation graph", () => {
  const echoGraph = (saver: NodeSqliteSaver) =>
    new StateGraph(MessagesAnnotation)
      .addNode("echo", (state) => {
        const last = state.messages.at(-1);
        return { messages: [new AIMessage(`echo #${state.messages.length}: ${last?.text ?? ""}`)] };
      })
      .addEdge(START, "echo")
      .addEdge("echo", END)
      .compile({ checkpointer: saver });

  it("accumulates state on a thread and keeps state and history across a restart", async () => {
    let saver = openSaver();
    expect(existsSync(file)).toBe(true); // the nested directory was created
    let graph = echoGraph(saver);

    await graph.invoke({ messages: [new HumanMessage("hello")] }, thread("t1"));
    const second = await graph.invoke({ messages: [new HumanMessage("again")] }, thread("t1"));
    expect(summary(second.messages)).toEqual([
      ["human", "hello"],
      ["ai", "echo #1: hello"],
      ["human", "again"],
      ["ai", "echo #3: again"],
    ]);
    const before = await graph.getState(thread("t1"));
    const historyBefore = await history(graph, "t1");
    expect(historyBefore.length).toBeGreaterThanOrEqual(4);

    saver = restart(saver);
    graph = echoGraph(saver);

    const after = await graph.getState(thread("t1"));
    expect(summary(messagesOf(after))).toEqual(summary(messagesOf(before)));
    expect(messagesOf(after).map((m) => m.id)).toEqual(messagesOf(before).map((m) => m.id));
    expect(messagesOf(after)[1]).toBeInstanceOf(AIMessage); // revived as real message classes, not plain JSON
    expect(after.config).toEqual(before.config);
    expect(after.next).toEqual([]);

    const historyAfter = await history(graph, "t1");
    expect(historyAfter.map(checkpointIdOf)).toEqual(historyBefore.map(checkpointIdOf));
    expect(historyAfter.map((s) => s.metadata?.step)).toEqual(historyBefore.map((s) => s.metadata?.step));
    expect(historyAfter.map((s) => messagesOf(s).length)).toEqual(historyBefore.map((s) => messagesOf(s).length));
    // Oldest checkpoint is the first input; each snapshot points at its parent.
    expect(historyAfter.at(-1)?.metadata?.source).toBe("input");
    expect(historyAfter.at(-1)?.parentConfig).toBeUndefined();
    for (let i = 0; i < historyAfter.length - 1; i += 1) {
      expect(historyAfter[i]!.parentConfig?.configurable?.checkpoint_id).toBe(
        historyAfter[i + 1]!.config.configurable?.checkpoint_id,
      );
    }

    // Time travel works after the restart: an earlier checkpoint's state is readable.
    const firstRunEnd = historyAfter.find((s) => messagesOf(s).length === 2)!;
    const old = await graph.getState(firstRunEnd.config);
    expect(summary(messagesOf(old))).toEqual([
      ["human", "hello"],
      ["ai", "echo #1: hello"],
    ]);

    // And the thread keeps accumulating.
    const third = await graph.invoke({ messages: [new HumanMessage("third")] }, thread("t1"));
    expect(third.messages).toHaveLength(6);
    expect(third.messages[5]!.content).toBe("echo #5: third");
  });

  it("keeps threads isolated and lists them for the UI", async () => {
    let saver = openSaver();
    let graph = echoGraph(saver);
    await graph.invoke({ messages: [new HumanMessage("a1")] }, thread("alpha"));
    await graph.invoke({ messages: [new HumanMessage("b1")] }, thread("beta"));
    await graph.invoke({ messages: [new HumanMessage("a2")] }, thread("alpha"));

    saver = restart(saver);
    graph = echoGraph(saver);
    const alpha = await graph.getState(thread("alpha"));
    const beta = await graph.getState(thread("beta"));
    expect(summary(messagesOf(alpha)).map(([, c]) => c)).toEqual(["a1", "echo #1: a1", "a2", "echo #3: a2"]);
    expect(summary(messagesOf(beta)).map(([, c]) => c)).toEqual(["b1", "echo #1: b1"]);

    const threads = saver.listThreads();
    expect(threads.map((t) => t.threadId)).toEqual(["alpha", "beta"]); // alpha was updated last
    expect(threads[0]!.checkpointCount).toBe((await history(graph, "alpha")).length);
    expect(threads[1]!.checkpointCount).toBe((await history(graph, "beta")).length);
    expect(Date.parse(threads[0]!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(threads[1]!.updatedAt));
    expect(threads[0]!.updatedAt).toBe(alpha.createdAt);
    expect(saver.listThreads({ limit: 1 }).map((t) => t.threadId)).toEqual(["alpha"]);

    await saver.deleteThread("alpha");
    expect((await graph.getState(thread("alpha"))).values).toEqual({});
    expect(summary(messagesOf(await graph.getState(thread("beta"))))).toHaveLength(2);
    expect(saver.listThreads().map((t) => t.threadId)).toEqual(["beta"]);
  });
});

describe("NodeSqliteSaver with interrupt() (human approval)", () => {
  const ApprovalState = Annotation.Root({
    request: Annotation<string>(),
    decision: Annotation<string>(),
    outcome: Annotation<string>(),
  });

  /** prepare → review (interrupts for approval) → apply | discard. Counts node runs per compiled graph. */
  function approvalGraph(saver: NodeSqliteSaver) {
    const runs = { prepare: 0, review: 0, apply: 0, discard: 0 };
    const graph = new StateGraph(ApprovalState)
      .addNode("prepare", (state) => {
        runs.prepare += 1;
        return { request: `write ${state.request}` };
      })
      .addNode("review", (state) => {
        runs.review += 1;
        const answer = interrupt<{ question: string }, string>({ question: `Approve "${state.request}"?` });
        return { decision: answer };
      })
      .addNode("apply", (state) => {
        runs.apply += 1;
        return { outcome: `applied ${state.request}` };
      })
      .addNode("discard", (state) => {
        runs.discard += 1;
        return { outcome: `discarded ${state.request}` };
      })
      .addEdge(START, "prepare")
      .addEdge("prepare", "review")
      .addConditionalEdges("review", (state) => (state.decision === "approved" ? "apply" : "discard"), [
        "apply",
        "discard",
      ])
      .addEdge("apply", END)
      .addEdge("discard", END)
      .compile({ checkpointer: saver });
    return { graph, runs };
  }

  async function runUntilInterrupt(threadId: string): Promise<NodeSqliteSaver> {
    const saver = openSaver();
    const { graph, runs } = approvalGraph(saver);
    const paused = await graph.invoke({ request: "notes.md" }, thread(threadId));
    expect(interruptsOf(paused)).toEqual([
      expect.objectContaining({ value: { question: 'Approve "write notes.md"?' } }),
    ]);
    expect(runs).toEqual({ prepare: 1, review: 1, apply: 0, discard: 0 });
    return saver;
  }

  it("resumes an approval after a restart with Command({ resume: 'approved' })", async () => {
    let saver = await runUntilInterrupt("approve-me");
    saver = restart(saver);
    const { graph, runs } = approvalGraph(saver);

    const pending = await graph.getState(thread("approve-me"));
    expect(pending.next).toEqual(["review"]);
    expect(pending.tasks).toHaveLength(1);
    expect(pending.tasks[0]!.interrupts.map((i): unknown => i.value)).toEqual([
      { question: 'Approve "write notes.md"?' },
    ]);
    expect(valuesOf(pending)).toEqual({ request: "write notes.md" });

    const done = await graph.invoke(new Command({ resume: "approved" }), thread("approve-me"));
    expect(done).toEqual({ request: "write notes.md", decision: "approved", outcome: "applied write notes.md" });
    // Only the interrupted node re-ran (from its start, as LangGraph does); prepare was not redone.
    expect(runs).toEqual({ prepare: 0, review: 1, apply: 1, discard: 0 });

    const finalState = await graph.getState(thread("approve-me"));
    expect(finalState.next).toEqual([]);
    expect(finalState.tasks).toEqual([]);

    // The finished thread also survives another restart.
    saver = restart(saver);
    const again = approvalGraph(saver);
    expect(valuesOf(await again.graph.getState(thread("approve-me"))).outcome).toBe("applied write notes.md");
  });

  it("takes the reject path after a restart with Command({ resume: 'rejected' })", async () => {
    let saver = await runUntilInterrupt("reject-me");
    saver = restart(saver);
    const { graph, runs } = approvalGraph(saver);

    const done = await graph.invoke(new Command({ resume: "rejected" }), thread("reject-me"));
    expect(done).toEqual({ request: "write notes.md", decision: "rejected", outcome: "discarded write notes.md" });
    expect(runs).toEqual({ prepare: 0, review: 1, apply: 0, discard: 1 });
  });

  it("keeps a resume value written before a crash (interrupt resumed in a subgraph namespace)", async () => {
    // A parent graph whose subgraph interrupts: the subgraph's checkpoints live in a non-root checkpoint_ns.
    const buildGraph = (saver: NodeSqliteSaver) => {
      const inner = new StateGraph(ApprovalState)
        .addNode("ask", () => ({ decision: interrupt<string, string>("ok?") }))
        .addEdge(START, "ask")
        .addEdge("ask", END)
        .compile();
      return new StateGraph(ApprovalState)
        .addNode("inner", inner)
        .addNode("finish", (state) => ({ outcome: `finished with ${state.decision}` }))
        .addEdge(START, "inner")
        .addEdge("inner", "finish")
        .addEdge("finish", END)
        .compile({ checkpointer: saver });
    };

    let saver = openSaver();
    const first = await buildGraph(saver).invoke({ request: "r" }, thread("nested"));
    expect(interruptsOf(first)[0]?.value).toBe("ok?");
    const namespaces = saver.db
      .prepare("SELECT DISTINCT checkpoint_ns AS ns FROM checkpoints WHERE thread_id = ? ORDER BY ns")
      .all("nested")
      .map((row) => row.ns);
    expect(namespaces[0]).toBe("");
    expect(namespaces.some((ns) => typeof ns === "string" && ns.startsWith("inner:"))).toBe(true);

    saver = restart(saver);
    const graph = buildGraph(saver);
    const pending = await graph.getState(thread("nested"), { subgraphs: true });
    expect(pending.next).toEqual(["inner"]);
    expect(pending.tasks[0]!.interrupts[0]!.value).toBe("ok?");

    const done = await graph.invoke(new Command({ resume: "approved" }), thread("nested"));
    expect(done.outcome).toBe("finished with approved");
    // Only root-namespace checkpoints count for the thread list.
    const [summaryRow] = saver.listThreads();
    expect(summaryRow!.checkpointCount).toBe((await history(graph, "nested")).length);
  });
});

describe("NodeSqliteSaver pending writes of a failed superstep", () => {
  const LogState = Annotation.Root({
    log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });

  function parallelGraph(saver: NodeSqliteSaver, failB: boolean) {
    const runs = { a: 0, b: 0 };
    const graph = new StateGraph(LogState)
      .addNode("a", () => {
        runs.a += 1;
        return { log: ["a"] };
      })
      .addNode("b", async () => {
        runs.b += 1;
        await new Promise((r) => setTimeout(r, 20)); // let "a" finish and save its writes first
        if (failB) throw new Error("b exploded");
        return { log: ["b"] };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("a", END)
      .addEdge("b", END)
      .compile({ checkpointer: saver });
    return { graph, runs };
  }

  it("persists the successful task's writes and the error, and does not redo the successful task", async () => {
    let saver = openSaver();
    const failing = parallelGraph(saver, true);
    await expect(failing.graph.invoke({ log: ["start"] }, thread("p1"))).rejects.toThrow("b exploded");
    expect(failing.runs).toEqual({ a: 1, b: 1 });

    saver = restart(saver);
    const tuple = await saver.getTuple(thread("p1"));
    const writes = tuple!.pendingWrites!;
    expect(writes.filter(([, channel]) => channel === "log").map(([, , value]) => value)).toEqual([["a"]]);
    const errorWrite = writes.find(([, channel]) => channel === "__error__");
    expect(errorWrite).toBeDefined();
    expect(JSON.stringify(errorWrite![2])).toContain("b exploded");

    const { graph, runs } = parallelGraph(saver, false);
    const state = await graph.getState(thread("p1"));
    // As with MemorySaver: "a" already has its writes (its result is known), only "b" is still to run.
    expect(state.next).toEqual(["b"]);
    expect(state.tasks.find((t) => t.name === "a")?.result).toEqual({ log: ["a"] });
    expect(state.tasks.find((t) => t.name === "b")?.error).toBeDefined();

    const done = await graph.invoke(null, thread("p1"));
    expect(runs).toEqual({ a: 0, b: 1 }); // a's saved writes were reused after the restart
    expect(done.log).toEqual(["start", "a", "b"]);
  });
});

describe("NodeSqliteSaver with a delta channel (MessagesDeltaValue)", () => {
  const State = new StateSchema({ messages: MessagesDeltaValue });

  const chatGraph = (saver: NodeSqliteSaver) =>
    new StateGraph(State)
      .addNode("reply", (state) => ({ messages: [new AIMessage(`seen ${state.messages.length}`)] }))
      .addEdge(START, "reply")
      .addEdge("reply", END)
      .compile({ checkpointer: saver });

  it("rebuilds the delta-encoded history from stored writes after a restart", async () => {
    let saver = openSaver();
    let graph = chatGraph(saver);
    for (const text of ["one", "two", "three"]) {
      await graph.invoke({ messages: [new HumanMessage(text)] }, thread("delta"));
    }
    const before = await graph.getState(thread("delta"));
    expect(messagesOf(before)).toHaveLength(6);

    saver = restart(saver);
    graph = chatGraph(saver);
    const after = await graph.getState(thread("delta"));
    expect(summary(messagesOf(after))).toEqual(summary(messagesOf(before)));

    const next = await graph.invoke({ messages: [new HumanMessage("four")] }, thread("delta"));
    expect(summary(next.messages).map(([, c]) => c)).toEqual([
      "one",
      "seen 1",
      "two",
      "seen 3",
      "three",
      "seen 5",
      "four",
      "seen 7",
    ]);
  });
});

describe("NodeSqliteSaver across a real process kill", () => {
  const State = Annotation.Root({ n: Annotation<number>(), answer: Annotation<string>() });
  const buildGraph = (saver: NodeSqliteSaver) =>
    new StateGraph(State)
      .addNode("bump", (state) => ({ n: state.n + 1 }))
      .addNode("ask", () => ({ answer: interrupt<string, string>("continue?") }))
      .addEdge(START, "bump")
      .addEdge("bump", "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: saver });

  it("resumes an interrupt left by a process that was SIGKILLed without close()", async () => {
    const agentDir = fileURLToPath(new URL("../..", import.meta.url));
    const saverUrl = pathToFileURL(join(agentDir, "src/checkpoint/sqlite-saver.ts")).href;
    // The child loads the TypeScript source through Node 24's built-in type stripping, runs the same graph to its
    // interrupt, then kills itself: no close(), so the -wal file is left for the next open to recover.
    const child = `
      import { NodeSqliteSaver } from ${JSON.stringify(saverUrl)};
      import { Annotation, StateGraph, START, END, interrupt } from "@langchain/langgraph";
      const State = Annotation.Root({ n: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("bump", (s) => ({ n: s.n + 1 }))
        .addNode("ask", () => ({ answer: interrupt("continue?") }))
        .addEdge(START, "bump").addEdge("bump", "ask").addEdge("ask", END)
        .compile({ checkpointer: NodeSqliteSaver.open(process.argv[1]) });
      const out = await graph.invoke({ n: 41 }, { configurable: { thread_id: "killed" } });
      process.stdout.write(JSON.stringify(out.__interrupt__.map((i) => i.value)));
      process.kill(process.pid, "SIGKILL");
    `;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", child, file], {
      cwd: agentDir,
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(result.signal, result.stderr).toBe("SIGKILL");
    expect(result.stdout).toBe(JSON.stringify(["continue?"]));
    expect(existsSync(`${file}-wal`)).toBe(true);

    const saver = openSaver();
    const graph = buildGraph(saver);
    const pending = await graph.getState(thread("killed"));
    expect(valuesOf(pending)).toEqual({ n: 42 });
    expect(pending.next).toEqual(["ask"]);
    const done = await graph.invoke(new Command({ resume: "yes" }), thread("killed"));
    expect(done).toEqual({ n: 42, answer: "yes" });
  });
});
