/**
 * The key cases of `@langchain/langgraph-checkpoint-validation` (not installed here), mirrored against
 * NodeSqliteSaver — with every read done after a "restart" (close + reopen on the same file) — plus differential
 * checks against the reference `MemorySaver` and the saver's own file-level behaviour (WAL, schema, close).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DeltaSnapshot,
  MemorySaver,
  TASKS,
  emptyCheckpoint,
  isDeltaSnapshot,
  uuid6,
  type BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeSqliteSaver } from "../../src/checkpoint/sqlite-saver.js";

type Config = Parameters<BaseCheckpointSaver["getTuple"]>[0];

let dir: string;
let file: string;
const opened: NodeSqliteSaver[] = [];

function openSaver(path = file): NodeSqliteSaver {
  const saver = NodeSqliteSaver.open(path);
  opened.push(saver);
  return saver;
}

function reopen(saver: NodeSqliteSaver): NodeSqliteSaver {
  saver.close();
  return openSaver();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "textide-checkpoint-conf-"));
  file = join(dir, "checkpoints.sqlite");
});

afterEach(() => {
  for (const saver of opened.splice(0)) saver.close();
  rmSync(dir, { recursive: true, force: true });
});

async function toArray(generator: AsyncGenerator<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const result: CheckpointTuple[] = [];
  for await (const item of generator) result.push(item);
  return result;
}

// ---- fixtures mirrored from checkpoint-validation's test_utils ----

function initialCheckpointTuple(
  thread_id: string,
  checkpoint_id: string,
  checkpoint_ns: string,
  channel_values: Record<string, unknown> = {},
): CheckpointTuple {
  return {
    config: { configurable: { thread_id, checkpoint_id, checkpoint_ns } },
    checkpoint: {
      v: 4,
      ts: new Date().toISOString(),
      id: checkpoint_id,
      channel_values,
      channel_versions: Object.fromEntries(Object.keys(channel_values).map((key) => [key, 1])),
      versions_seen: { "": { someChannel: 1 } },
    },
    metadata: { source: "input", step: -1, parents: {} },
  };
}

interface GeneratedPut {
  tuple: CheckpointTuple;
  writes: { taskId: string; writes: PendingWrite[] }[];
  newVersions: Record<string, number | string>;
}

function parentAndChild(thread_id: string, checkpoint_ns: string): GeneratedPut[] {
  const parentId = uuid6(3);
  const childId = uuid6(3);
  const writesToParent = [{ taskId: "pending_sends_task", writes: [[TASKS, ["add_fish"]]] as PendingWrite[] }];
  const writesToChild = [{ taskId: "add_fish", writes: [["animals", ["dog", "fish"]]] as PendingWrite[] }];
  const parent: CheckpointTuple = {
    config: { configurable: { thread_id, checkpoint_ns, checkpoint_id: parentId } },
    checkpoint: {
      v: 4,
      ts: new Date().toISOString(),
      id: parentId,
      channel_values: { animals: ["dog"] },
      channel_versions: { animals: 1 },
      versions_seen: { "": { someChannel: 1 } },
    },
    metadata: { source: "input", step: -1, parents: {} },
    pendingWrites: [["pending_sends_task", TASKS, ["add_fish"]]],
  };
  const child: CheckpointTuple = {
    config: { configurable: { thread_id, checkpoint_ns, checkpoint_id: childId } },
    checkpoint: {
      v: 4,
      ts: new Date().toISOString(),
      id: childId,
      channel_values: { animals: ["animals", ["dog", "fish"]] },
      channel_versions: { animals: 2 },
      versions_seen: { "": { someChannel: 1 } },
    },
    metadata: { source: "loop", step: 0, parents: { [checkpoint_ns]: parentId } },
    parentConfig: { configurable: { thread_id, checkpoint_ns, checkpoint_id: parentId } },
    pendingWrites: [["add_fish", "animals", ["dog", "fish"]]],
  };
  return [
    { tuple: parent, writes: writesToParent, newVersions: { animals: 1 } },
    { tuple: child, writes: writesToChild, newVersions: { animals: 2 } },
  ];
}

/** put + putWrites each generated tuple as LangGraph would (parent id in the config), returning what was stored. */
async function putTuples(saver: BaseCheckpointSaver, generated: GeneratedPut[]): Promise<CheckpointTuple[]> {
  const stored: CheckpointTuple[] = [];
  for (const { tuple, writes, newVersions } of generated) {
    const { thread_id, checkpoint_ns } = tuple.config.configurable as { thread_id: string; checkpoint_ns: string };
    expect(await saver.getTuple(tuple.config)).toBeUndefined();
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    const config = await saver.put(
      { configurable: { thread_id, checkpoint_ns, checkpoint_id: parentId } },
      tuple.checkpoint,
      tuple.metadata!,
      newVersions,
    );
    for (const write of writes) await saver.putWrites(config, write.writes, write.taskId);
    const got = await saver.getTuple(config);
    expect(got).toBeDefined();
    stored.push(got!);
  }
  return stored;
}

describe.each(["root", "child"])("put (namespace: %s)", (namespace) => {
  const checkpoint_ns = namespace === "root" ? "" : namespace;

  it("stores checkpoint and metadata unaltered and returns only thread_id/checkpoint_ns/checkpoint_id", async () => {
    let saver = openSaver();
    const thread_id = uuid6(3);
    const { checkpoint, metadata } = initialCheckpointTuple(thread_id, uuid6(3), checkpoint_ns);
    expect(
      await saver.get({ configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } }),
    ).toBeUndefined();

    const returned = await saver.put(
      { configurable: { thread_id, checkpoint_ns, canary: "tweet" } },
      checkpoint,
      metadata!,
      {},
    );
    expect(returned).toEqual({ configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } });

    saver = reopen(saver);
    const tuple = await saver.getTuple(returned);
    expect(tuple?.checkpoint).toEqual(checkpoint);
    expect(tuple?.metadata).toEqual(metadata);
    expect(tuple?.config).toEqual(returned);
    expect(tuple?.parentConfig).toBeUndefined();
    expect(tuple?.pendingWrites).toEqual([]);
  });

  it("rejects a config without configurable or without thread_id", async () => {
    const saver = openSaver();
    const { checkpoint, metadata } = initialCheckpointTuple("x", uuid6(3), checkpoint_ns);
    await expect(saver.put({}, checkpoint, metadata!, {})).rejects.toThrow(/thread_id/);
    await expect(saver.put({ configurable: { checkpoint_ns } }, checkpoint, metadata!, {})).rejects.toThrow(
      /thread_id/,
    );
    await expect(saver.put({ configurable: { thread_id: 42 } }, checkpoint, metadata!, {})).rejects.toThrow(
      /thread_id/,
    );
  });
});

describe("put defaults", () => {
  it("defaults to the root namespace when checkpoint_ns is missing", async () => {
    const saver = openSaver();
    const thread_id = uuid6(3);
    const { checkpoint, metadata } = initialCheckpointTuple(thread_id, uuid6(3), "");
    const returned = await saver.put({ configurable: { thread_id } }, checkpoint, metadata!, {});
    expect(returned.configurable?.checkpoint_ns).toBe("");
    expect((await saver.getTuple({ configurable: { thread_id } }))?.checkpoint.id).toBe(checkpoint.id);
  });

  it("replaces a checkpoint put twice with the same id (like MemorySaver)", async () => {
    const saver = openSaver();
    const { checkpoint, metadata } = initialCheckpointTuple("t", uuid6(3), "");
    await saver.put({ configurable: { thread_id: "t" } }, checkpoint, metadata!, {});
    await saver.put(
      { configurable: { thread_id: "t" } },
      { ...checkpoint, channel_values: { x: 1 } },
      { ...metadata!, step: 5 },
      {},
    );
    const tuples = await toArray(saver.list({ configurable: { thread_id: "t" } }));
    expect(tuples).toHaveLength(1);
    expect(tuples[0]!.checkpoint.channel_values).toEqual({ x: 1 });
    expect(tuples[0]!.metadata?.step).toBe(5);
  });
});

describe.each(["root", "child"])("putWrites (namespace: %s)", (namespace) => {
  const checkpoint_ns = namespace === "root" ? "" : namespace;

  it("stores writes against the checkpoint", async () => {
    let saver = openSaver();
    const thread_id = uuid6(3);
    const { checkpoint, metadata } = initialCheckpointTuple(thread_id, uuid6(3), checkpoint_ns);
    const config = await saver.put({ configurable: { thread_id, checkpoint_ns } }, checkpoint, metadata!, {});
    await saver.putWrites(config, [["animals", "dog"]], "pet_task");
    saver = reopen(saver);
    const tuple = await saver.getTuple(config);
    expect(tuple?.pendingWrites).toEqual([["pet_task", "animals", "dog"]]);
    expect(tuple?.config).toEqual({ configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } });
  });

  it("rejects a config without thread_id or checkpoint_id", async () => {
    const saver = openSaver();
    await expect(
      saver.putWrites({ configurable: { checkpoint_ns, checkpoint_id: uuid6(3) } }, [["animals", "dog"]], "t"),
    ).rejects.toThrow(/thread_id/);
    await expect(
      saver.putWrites({ configurable: { thread_id: uuid6(3), checkpoint_ns } }, [["animals", "dog"]], "t"),
    ).rejects.toThrow(/checkpoint_id/);
  });
});

describe("putWrites semantics match MemorySaver", () => {
  async function scenario(saver: BaseCheckpointSaver): Promise<CheckpointPendingWrite[] | undefined> {
    const { checkpoint, metadata } = initialCheckpointTuple("w", uuid6(3), "");
    const config = await saver.put({ configurable: { thread_id: "w", checkpoint_ns: "" } }, checkpoint, metadata!, {});
    // Regular writes: a retry of the same (task, idx) keeps the first value.
    await saver.putWrites(
      config,
      [
        ["x", 1],
        ["y", { nested: [1, 2] }],
      ],
      "task-r",
    );
    await saver.putWrites(config, [["x", 99]], "task-r");
    // Special writes (negative idx) replace.
    await saver.putWrites(config, [["__error__", { message: "first" }]], "task-e");
    await saver.putWrites(config, [["__error__", { message: "second" }]], "task-e");
    await saver.putWrites(config, [["__interrupt__", [{ value: "ok?" }]]], "task-i");
    // Writes sort by (task_path, task_id, idx): no path first, then by path, regardless of arrival order.
    await saver.putWrites(config, [["z", "late"]], "task-a", "~1");
    await saver.putWrites(config, [["z", "early"]], "task-b", "~0");
    await saver.putWrites(config, [["z", "astral"]], "task-c", "~\u{1F600}");
    await saver.putWrites(config, [["z", "bmp"]], "task-d", "~\uFFFF");
    if (saver instanceof NodeSqliteSaver) saver = reopen(saver);
    return (await saver.getTuple({ configurable: { thread_id: "w", checkpoint_ns: "" } }))?.pendingWrites;
  }

  it("keeps, replaces and orders writes exactly as the reference saver does", async () => {
    const expected = await scenario(new MemorySaver());
    const actual = await scenario(openSaver());
    expect(actual).toEqual(expected);
    expect(actual?.map(([taskId, channel]) => `${taskId}:${channel}`)).toEqual([
      "task-e:__error__",
      "task-i:__interrupt__",
      "task-r:x",
      "task-r:y",
      "task-b:z",
      "task-a:z",
      "task-d:z",
      "task-c:z",
    ]);
    expect(actual?.find(([, c]) => c === "x")?.[2]).toBe(1);
    expect(actual?.find(([, c]) => c === "__error__")?.[2]).toEqual({ message: "second" });
  });
});

describe.each(["root", "child"])("getTuple (namespace: %s)", (namespace) => {
  const checkpoint_ns = namespace === "root" ? "" : namespace;
  let saver: NodeSqliteSaver;
  let thread_id: string;
  let generated: GeneratedPut[];

  beforeEach(async () => {
    saver = openSaver();
    thread_id = uuid6(3);
    generated = parentAndChild(thread_id, checkpoint_ns);
    await putTuples(saver, generated);
    saver = reopen(saver);
  });

  it("returns the first checkpoint by id with its writes and no parent", async () => {
    const parent = generated[0]!.tuple;
    const tuple = await saver.getTuple(parent.config);
    expect(tuple?.checkpoint).toEqual(parent.checkpoint);
    expect(tuple?.metadata).toEqual(parent.metadata);
    expect(tuple?.config).toEqual(parent.config);
    expect(tuple?.parentConfig).toBeUndefined();
    expect(tuple?.pendingWrites).toEqual([["pending_sends_task", TASKS, ["add_fish"]]]);
  });

  it("returns a later checkpoint by id with its parent config and writes", async () => {
    const child = generated[1]!.tuple;
    const tuple = await saver.getTuple(child.config);
    expect(tuple?.checkpoint).toEqual(child.checkpoint);
    expect(tuple?.metadata).toEqual(child.metadata);
    expect(tuple?.config).toEqual(child.config);
    expect(tuple?.parentConfig).toEqual(child.parentConfig);
    expect(tuple?.pendingWrites).toEqual([["add_fish", "animals", ["dog", "fish"]]]);
  });

  it("returns the latest checkpoint when no checkpoint_id is given", async () => {
    const child = generated[1]!.tuple;
    const tuple = await saver.getTuple({ configurable: { thread_id, checkpoint_ns } });
    expect(tuple).toEqual(child);
  });

  it("hands back the caller's config for an explicit id, like MemorySaver", async () => {
    const config = { configurable: { ...generated[1]!.tuple.config.configurable, extra: 1 } };
    expect((await saver.getTuple(config))?.config).toBe(config);
  });

  it("returns undefined for an unknown checkpoint, an unknown thread, or no thread_id", async () => {
    expect(
      await saver.getTuple({ configurable: { thread_id, checkpoint_ns, checkpoint_id: uuid6(3) } }),
    ).toBeUndefined();
    expect(await saver.getTuple({ configurable: { thread_id: uuid6(3), checkpoint_ns } })).toBeUndefined();
    expect(await saver.getTuple({ configurable: { checkpoint_ns } })).toBeUndefined();
    expect(await saver.getTuple({ configurable: { thread_id, checkpoint_ns: "elsewhere" } })).toBeUndefined();
  });

  it("carries over channels written by an ancestor", async () => {
    const id0 = uuid6(3);
    const id1 = uuid6(3);
    const t = uuid6(3);
    const c0 = await saver.put(
      { configurable: { thread_id: t, checkpoint_ns } },
      {
        v: 4,
        id: id0,
        ts: new Date().toISOString(),
        channel_values: { messages: ["hi"], stepCount: 1 },
        channel_versions: { messages: 1, stepCount: 1 },
        versions_seen: { "": { someChannel: 1 } },
      },
      { source: "loop", step: 0, parents: {} },
      { messages: 1, stepCount: 1 },
    );
    await saver.put(
      c0,
      {
        v: 4,
        id: id1,
        ts: new Date().toISOString(),
        channel_values: { messages: ["hi"], stepCount: 3 },
        channel_versions: { messages: 1, stepCount: 2 },
        versions_seen: { "": { someChannel: 1 } },
      },
      { source: "loop", step: 1, parents: {} },
      { stepCount: 2 },
    );
    saver = reopen(saver);
    const latest = await saver.getTuple({ configurable: { thread_id: t, checkpoint_ns } });
    expect(latest?.checkpoint.channel_values).toEqual({ messages: ["hi"], stepCount: 3 });
  });
});

describe("pending sends migration (checkpoints older than v4)", () => {
  it("attaches the parent's TASKS writes to the next checkpoint in getTuple and list", async () => {
    let saver = openSaver();
    let config: Config = { configurable: { thread_id: "thread-1", checkpoint_ns: "" } };
    const checkpoint0: Checkpoint = {
      v: 1,
      id: uuid6(0),
      ts: "2024-04-19T17:19:07.952Z",
      channel_values: {},
      channel_versions: {},
      versions_seen: {},
    };
    config = await saver.put(config, checkpoint0, { source: "loop", parents: {}, step: 0 }, {});
    await saver.putWrites(
      config,
      [
        [TASKS, "send-1"],
        [TASKS, "send-2"],
      ],
      "task-1",
    );
    await saver.putWrites(config, [[TASKS, "send-3"]], "task-2");
    saver = reopen(saver);

    const tuple0 = await saver.getTuple(config);
    expect(tuple0?.checkpoint.channel_values).toEqual({});
    expect(tuple0?.checkpoint.channel_versions).toEqual({});

    const checkpoint1: Checkpoint = {
      v: 1,
      id: uuid6(1),
      ts: "2024-04-20T17:19:07.952Z",
      channel_values: {},
      channel_versions: checkpoint0.channel_versions,
      versions_seen: checkpoint0.versions_seen,
    };
    config = await saver.put(config, checkpoint1, { source: "loop", parents: {}, step: 1 }, {});
    saver = reopen(saver);

    const tuple1 = await saver.getTuple(config);
    expect(tuple1?.checkpoint.channel_values).toEqual({ [TASKS]: ["send-1", "send-2", "send-3"] });
    expect(tuple1?.checkpoint.channel_versions[TASKS]).toBeDefined();

    const listed = await toArray(saver.list({ configurable: { thread_id: "thread-1" } }));
    expect(listed).toHaveLength(2);
    expect(listed[0]!.checkpoint.channel_values).toEqual({ [TASKS]: ["send-1", "send-2", "send-3"] });
    expect(listed[0]!.checkpoint.channel_versions[TASKS]).toBeDefined();
  });
});

describe("list", () => {
  const namespaces = ["", "child"];
  const invalidThreadId = uuid6(3);
  // Two threads × two namespaces × (parent, child), as checkpoint-validation generates them.
  const threadIds = [uuid6(3), uuid6(3)];
  const generated: GeneratedPut[] = threadIds.flatMap((t) => namespaces.flatMap((ns) => parentAndChild(t, ns)));
  const tuples = generated.map((g) => g.tuple);
  const [parentInRoot, childInRoot, parentInChild, childInChild] = tuples as [
    CheckpointTuple,
    CheckpointTuple,
    CheckpointTuple,
    CheckpointTuple,
  ];

  const ranges = {
    thread_id: [
      undefined,
      parentInRoot.config.configurable?.thread_id as string,
      childInRoot.config.configurable?.thread_id as string,
      parentInChild.config.configurable?.thread_id as string,
      childInChild.config.configurable?.thread_id as string,
      tuples[4]!.config.configurable?.thread_id as string,
      invalidThreadId,
    ],
    checkpoint_ns: [undefined, ...namespaces],
    limit: [undefined, 1, 2],
    before: [undefined, parentInRoot.config, childInRoot.config],
    filter: [undefined, {}, { source: "input" }, { source: "loop" }, { step: -1 }] as (
      Record<string, unknown> | undefined
    )[],
  };

  let saver: NodeSqliteSaver;
  let reference: MemorySaver;
  const stored = new Map<string, CheckpointTuple>();

  beforeEach(async () => {
    saver = openSaver();
    reference = new MemorySaver();
    stored.clear();
    for (const tuple of await putTuples(saver, generated)) stored.set(tuple.checkpoint.id, tuple);
    await putTuples(reference, generated);
    saver = reopen(saver);
  });

  it("returns what checkpoint-validation expects for every combination of thread, namespace, limit, before and filter", async () => {
    let cases = 0;
    for (const thread_id of ranges.thread_id) {
      for (const checkpoint_ns of ranges.checkpoint_ns) {
        for (const limit of ranges.limit) {
          for (const before of ranges.before) {
            for (const filter of ranges.filter) {
              cases += 1;
              const label = JSON.stringify({ thread_id, checkpoint_ns, limit, before: before?.configurable, filter });
              const expectedIds = tuples
                .filter(
                  (t) =>
                    (thread_id === undefined || t.config.configurable?.thread_id === thread_id) &&
                    (checkpoint_ns === undefined || t.config.configurable?.checkpoint_ns === checkpoint_ns) &&
                    (before === undefined || t.checkpoint.id < (before.configurable?.checkpoint_id as string)) &&
                    (filter === undefined ||
                      Object.entries(filter).every(
                        ([key, value]) => (t.metadata as Record<string, unknown>)[key] === value,
                      )),
                )
                .map((t) => t.checkpoint.id);
              const actual = await toArray(
                saver.list({ configurable: { thread_id, checkpoint_ns } }, { limit, before, filter }),
              );
              const limited = limit !== undefined && limit < expectedIds.length;
              expect(actual.length, label).toBe(limited ? limit : expectedIds.length);
              for (const tuple of actual) {
                expect(expectedIds, label).toContain(tuple.checkpoint.id);
                expect(tuple, label).toEqual(stored.get(tuple.checkpoint.id));
              }
              // Newest first within a thread and namespace, as MemorySaver yields them.
              if (thread_id !== undefined && checkpoint_ns !== undefined) {
                const ref = await toArray(
                  reference.list({ configurable: { thread_id, checkpoint_ns } }, { limit, before, filter }),
                );
                expect(actual, label).toEqual(ref);
              }
            }
          }
        }
      }
    }
    expect(cases).toBe(7 * 3 * 3 * 3 * 5);
  });

  it("lists one checkpoint when config carries a checkpoint_id", async () => {
    const actual = await toArray(saver.list(childInRoot.config));
    expect(actual).toEqual([stored.get(childInRoot.checkpoint.id)]);
  });

  it("treats limit 0 as 'nothing' and stops early on an async iterator break", async () => {
    expect(await toArray(saver.list({ configurable: {} }, { limit: 0 }))).toEqual([]);
    let seen = 0;
    for await (const _tuple of saver.list({ configurable: {} })) {
      seen += 1;
      if (seen === 2) break;
    }
    expect(seen).toBe(2);
  });

  it("filters metadata by deep equality (objects too), unlike MemorySaver's ===", async () => {
    const parents = await toArray(saver.list({ configurable: {} }, { filter: { parents: {} } }));
    expect(parents.map((t) => t.checkpoint.id).sort()).toEqual(
      tuples
        .filter((t) => t.metadata?.source === "input")
        .map((t) => t.checkpoint.id)
        .sort(),
    );
    const childParents = { "": parentInRoot.checkpoint.id };
    expect(await toArray(saver.list({ configurable: {} }, { filter: { parents: childParents } }))).toEqual([
      stored.get(childInRoot.checkpoint.id),
    ]);
    expect(await toArray(saver.list({ configurable: {} }, { filter: { source: "input", step: 0 } }))).toEqual([]);
    // A filter key the metadata lacks, with value undefined, matches (as in MemorySaver).
    expect(await toArray(saver.list({ configurable: {} }, { filter: { missing: undefined } }))).toHaveLength(8);
  });
});

describe("deleteThread", () => {
  it("deletes a thread's checkpoints and writes and leaves other threads alone", async () => {
    let saver = openSaver();
    const thread1 = { configurable: { thread_id: "1", checkpoint_ns: "" } };
    const thread2 = { configurable: { thread_id: "2", checkpoint_ns: "" } };
    const meta: CheckpointMetadata = { source: "update", step: -1, parents: {} };
    const c1 = await saver.put(thread1, emptyCheckpoint(), meta, {});
    await saver.putWrites(c1, [["x", 1]], "task");
    await saver.put({ configurable: { thread_id: "1", checkpoint_ns: "sub:1" } }, emptyCheckpoint(), meta, {});
    await saver.put(thread2, emptyCheckpoint(), meta, {});
    expect(await saver.getTuple(thread1)).toBeDefined();

    await saver.deleteThread("1");
    saver = reopen(saver);

    expect(await saver.getTuple(thread1)).toBeUndefined();
    expect(await toArray(saver.list({ configurable: { thread_id: "1" } }))).toEqual([]);
    expect(saver.db.prepare("SELECT COUNT(*) AS n FROM checkpoint_writes WHERE thread_id = '1'").get()).toEqual({
      n: 0,
    });
    expect(await saver.getTuple(thread2)).toBeDefined();
    expect(saver.listThreads().map((t) => t.threadId)).toEqual(["2"]);
  });
});

describe("getDeltaChannelHistory (base walk over this saver's storage)", () => {
  const meta: CheckpointMetadata = { source: "loop", step: 0, parents: {} };
  async function putCheckpoint(saver: BaseCheckpointSaver, parent: Config, values: Record<string, unknown>) {
    const channel_versions = Object.fromEntries(Object.keys(values).map((k) => [k, 1]));
    const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(3), channel_values: values, channel_versions };
    return saver.put(parent, checkpoint, meta, channel_versions);
  }

  describe.each(["", "child"])("namespace %j", (checkpoint_ns) => {
    it("walks ancestors oldest→newest from a DeltaSnapshot seed, after a reopen", async () => {
      let saver = openSaver();
      const root = { configurable: { thread_id: uuid6(3), checkpoint_ns } };
      const c0 = await putCheckpoint(saver, root, { messages: new DeltaSnapshot([0]) });
      await saver.putWrites(c0, [["messages", [1]]], "task0");
      const c1 = await putCheckpoint(saver, c0, {});
      await saver.putWrites(c1, [["messages", [2]]], "task1");
      const c2 = await putCheckpoint(saver, c1, {});
      saver = reopen(saver);

      const hist = await saver.getDeltaChannelHistory({ config: c2, channels: ["messages"] });
      expect(isDeltaSnapshot(hist.messages!.seed)).toBe(true);
      expect((hist.messages!.seed as DeltaSnapshot).value).toEqual([0]);
      expect(hist.messages!.writes.map((w) => w[2])).toEqual([[1], [2]]);
    });

    it("orders same-superstep writes by task id and omits a seed no ancestor stored", async () => {
      let saver = openSaver();
      const root = { configurable: { thread_id: uuid6(3), checkpoint_ns } };
      const c0 = await putCheckpoint(saver, root, {});
      await saver.putWrites(c0, [["messages", ["b"]]], "task-b");
      await saver.putWrites(c0, [["messages", ["a"]]], "task-a");
      const c1 = await putCheckpoint(saver, c0, {});
      saver = reopen(saver);

      const hist = await saver.getDeltaChannelHistory({ config: c1, channels: ["messages", "other"] });
      expect(hist.messages!.writes.map((w) => w[0])).toEqual(["task-a", "task-b"]);
      expect("seed" in hist.messages!).toBe(false);
      expect(hist.other).toEqual({ writes: [] });
    });
  });
});

describe("the SQLite file", () => {
  it("uses WAL, records the schema version once, and reopens idempotently", async () => {
    const nested = join(dir, "a", "b", "c.sqlite");
    let saver = openSaver(nested);
    expect(saver.db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    const { checkpoint, metadata } = initialCheckpointTuple("t", uuid6(3), "");
    await saver.put({ configurable: { thread_id: "t" } }, checkpoint, metadata!, {});
    expect(existsSync(`${nested}-wal`)).toBe(true);

    saver.close();
    saver.close(); // idempotent
    expect(existsSync(`${nested}-wal`)).toBe(false); // the last connection folded the WAL back into the file
    openSaver(nested).close();
    saver = openSaver(nested);
    expect(saver.db.prepare("SELECT version FROM checkpoint_schema").all()).toEqual([{ version: 1 }]);
    expect((await saver.getTuple({ configurable: { thread_id: "t" } }))?.checkpoint).toEqual(checkpoint);
  });

  it("refuses a database written by a newer schema", () => {
    const saver = openSaver();
    saver.db.prepare("INSERT INTO checkpoint_schema (version, applied_at) VALUES (99, 'later')").run();
    saver.close();
    expect(() => NodeSqliteSaver.open(file)).toThrow(/schema is version 99/);
  });

  it("fails clearly after close()", async () => {
    const saver = openSaver();
    saver.close();
    expect(saver.closed).toBe(true);
    await expect(saver.getTuple({ configurable: { thread_id: "t" } })).rejects.toThrow(/closed/);
    expect(() => saver.listThreads()).toThrow(/closed/);
  });

  it("lets a second connection (another process) read what the first wrote, and vice versa", async () => {
    const writer = openSaver();
    const reader = openSaver();
    const { checkpoint, metadata } = initialCheckpointTuple("shared", uuid6(3), "");
    const config = await writer.put({ configurable: { thread_id: "shared" } }, checkpoint, metadata!, {});
    expect((await reader.getTuple(config))?.checkpoint).toEqual(checkpoint);
    await reader.putWrites(config, [["note", "from reader"]], "task");
    expect((await writer.getTuple(config))?.pendingWrites).toEqual([["task", "note", "from reader"]]);
  });

  it("handles many concurrent puts and writes on one saver", async () => {
    const saver = openSaver();
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const threadId = `c${i % 5}`;
        const { checkpoint, metadata } = initialCheckpointTuple(threadId, uuid6(i), "");
        const config = await saver.put({ configurable: { thread_id: threadId } }, checkpoint, metadata!, {});
        await saver.putWrites(config, [["n", i]], `task-${i}`);
      }),
    );
    const threads = saver.listThreads();
    expect(threads).toHaveLength(5);
    expect(threads.every((t) => t.checkpointCount === 10)).toBe(true);
    const all = await toArray(saver.list({ configurable: {} }));
    expect(all).toHaveLength(50);
    expect(all.every((t) => t.pendingWrites?.length === 1)).toBe(true);
  });

  it("works on an in-memory database", async () => {
    const saver = NodeSqliteSaver.open(":memory:");
    opened.push(saver);
    const { checkpoint, metadata } = initialCheckpointTuple("m", uuid6(3), "");
    await saver.put({ configurable: { thread_id: "m" } }, checkpoint, metadata!, {});
    expect(saver.listThreads()).toEqual([{ threadId: "m", updatedAt: checkpoint.ts, checkpointCount: 1 }]);
  });
});
