/**
 * Issue 16: a change reaches a window once, whether only the instance that made it saw it (network disk)
 * or every instance's watcher saw it too (one shared local disk).
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, type FileChangedEvent } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeDeduper, versionOf } from "../server/cluster/file-fanout.js";

let dir: string;
let policy: PathPolicy;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "textide-dedupe-"));
  await mkdir(path.join(dir, "project"));
  await mkdir(path.join(dir, "assets"));
  policy = new PathPolicy(
    await resolveRoots([
      { name: ROOT.project, path: path.join(dir, "project"), writable: true },
      { name: ROOT.assets, path: path.join(dir, "assets"), writable: true },
    ]),
  );
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const added = (p: string, root: FileChangedEvent["root"] = ROOT.project): FileChangedEvent => ({
  root,
  path: p,
  kind: "add",
});

describe("versionOf", () => {
  it("names an added file by mtime and size, in either root, and a gone file or a folder by nothing", async () => {
    await writeFile(path.join(dir, "project/a.txt"), "12345");
    await utimes(path.join(dir, "project/a.txt"), 1_700_000_000, 1_700_000_000);
    await writeFile(path.join(dir, "assets/chart.png"), "png");
    expect(await versionOf(policy, added("a.txt"))).toBe("1700000000000:5");
    expect(await versionOf(policy, added("generated_assets/chart.png", ROOT.assets))).toMatch(/^\d+:3$/);
    expect(await versionOf(policy, added("gone.txt"))).toBe("");
    expect(await versionOf(policy, { root: ROOT.project, path: "a.txt", kind: "unlink" })).toBe("");
  });
});

describe("ChangeDeduper", () => {
  it("passes a change seen by this instance's watcher and then published by another one once", () => {
    const d = new ChangeDeduper();
    const change = { event: added("x.csv"), version: "1:10" };
    expect(d.admit(change, "local", 1000)).toBe(true);
    expect(d.admit(change, "remote", 1050)).toBe(false);
  });

  it("passes a change published by another instance and then seen by this one's watcher once", () => {
    const d = new ChangeDeduper();
    const change = { event: added("y.csv"), version: "1:10" };
    expect(d.admit(change, "remote", 1000)).toBe(true);
    expect(d.admit(change, "local", 1200)).toBe(false);
  });

  it("passes a new version of the same file, and repeats from one side (a file saved twice)", () => {
    const d = new ChangeDeduper();
    expect(d.admit({ event: added("z.csv"), version: "1:10" }, "local", 1000)).toBe(true);
    expect(d.admit({ event: added("z.csv"), version: "2:11" }, "remote", 1100)).toBe(true);
    expect(d.admit({ event: added("z.csv"), version: "2:11" }, "remote", 1200)).toBe(true);
  });

  it("forgets a change after a while, so that a later identical report is news", () => {
    const d = new ChangeDeduper();
    const removed = { event: { root: ROOT.project, path: "old.txt", kind: "unlink" } as FileChangedEvent, version: "" };
    expect(d.admit(removed, "local", 1000)).toBe(true);
    expect(d.admit(removed, "remote", 1000 + 60_000)).toBe(true);
  });
});
