/**
 * SqliteThreadStore on a real file: the metadata table beside the checkpoints, the migration of a file the old
 * code wrote (checkpoint tables only), owners, claims and run states.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeSqliteSaver } from "../../src/checkpoint/sqlite-saver.js";
import { SqliteThreadStore } from "../../src/checkpoint/sqlite-thread-store.js";
import { threadTitleOf } from "../../src/checkpoint/thread-store.js";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "textide-thread-store-"));
  file = join(dir, "threads.sqlite");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes checkpoints for `threadId` through a real (model-free) graph, as a run would. */
async function writeThread(saver: NodeSqliteSaver, threadId: string, text: string): Promise<void> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("echo", () => ({ messages: [] }))
    .addEdge(START, "echo")
    .addEdge("echo", END)
    .compile({ checkpointer: saver });
  await graph.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: threadId } });
}

describe("SqliteThreadStore", () => {
  it("migrates a file from before the metadata table: its threads belong to 'local', untitled, idle", async () => {
    const old = NodeSqliteSaver.open(file);
    await writeThread(old, "t-old", "an old request");
    old.close();

    const store = SqliteThreadStore.open(file);
    try {
      expect(await store.list("local")).toEqual([
        expect.objectContaining({ threadId: "t-old", owner: "local", title: undefined, state: "idle" }),
      ]);
      expect(await store.ownerOf("t-old")).toBe("local");
      await store.setTitle("t-old", "an old request");
      await store.setTitle("t-old", "not this one");
      expect((await store.list(undefined))[0]?.title).toBe("an old request");
    } finally {
      await store.close();
    }
    // Opening again migrates nothing twice and keeps the rows.
    const again = SqliteThreadStore.open(file);
    expect((await again.list("local")).map((t) => t.threadId)).toEqual(["t-old"]);
    await again.close();
  });

  it("gives a thread to its first claimer and lists only threads with checkpoints, per owner", async () => {
    const store = SqliteThreadStore.open(file);
    try {
      expect(await store.claim("t1", "alice", "first")).toBe(true);
      expect(await store.claim("t1", "bob", "mine now")).toBe(false);
      expect(await store.claim("t1", "alice")).toBe(true);
      expect(await store.claim("t2", "bob", "bob's")).toBe(true);
      expect(await store.list("alice")).toEqual([]); // claimed, but no run saved anything yet
      await writeThread(store.checkpointer, "t1", "first");
      await writeThread(store.checkpointer, "t2", "bob's");
      expect((await store.list("alice")).map((t) => [t.threadId, t.title])).toEqual([["t1", "first"]]);
      expect((await store.list("bob")).map((t) => t.threadId)).toEqual(["t2"]);
      expect((await store.list(undefined)).map((t) => t.threadId).sort()).toEqual(["t1", "t2"]);
      expect(await store.ownerOf("nope")).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("tracks run states per instance: a late end from another instance never overwrites them", async () => {
    const store = SqliteThreadStore.open(file);
    const stateOf = async (id: string) => (await store.list(undefined)).find((t) => t.threadId === id)?.state;
    try {
      for (const id of ["a", "b"]) {
        await store.claim(id, "local", id);
        await writeThread(store.checkpointer, id, id);
      }
      await store.markRun("a", "running", "one");
      await store.markRun("b", "running", "two");
      expect(await store.markInterrupted("one")).toEqual(["a"]);
      await store.markRun("a", "idle", "two");
      expect([await stateOf("a"), await stateOf("b")]).toEqual(["interrupted", "running"]);
      await store.markRun("b", "idle", "two");
      expect(await stateOf("b")).toBe("idle");
      expect(await store.markInterrupted("two")).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("titles a thread by its first request, shortened", () => {
    expect(threadTitleOf("  plot the planets  ")).toBe("plot the planets");
    expect(threadTitleOf("")).toBe("(empty thread)");
    const long = threadTitleOf("x".repeat(200));
    expect([long.length, long.endsWith("…")]).toEqual([80, true]);
  });
});
