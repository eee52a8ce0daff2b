import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryPath, SKIPPED_DIRS, walk, type WalkOptions } from "./walk.js";

/*
 * root/a.txt
 * root/docs/b.md
 * root/docs/deep/c.md
 * root/node_modules/pkg/x.js     skipped by SKIPPED_DIRS
 * root/linked -> root/docs       a symlinked folder inside the root
 * root/same.txt -> root/a.txt    a symlinked file inside the root
 */
let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "textide-walk-")));
  await mkdir(path.join(root, "docs", "deep"), { recursive: true });
  await mkdir(path.join(root, "node_modules", "pkg"), { recursive: true });
  await writeFile(path.join(root, "a.txt"), "a");
  await writeFile(path.join(root, "docs", "b.md"), "b");
  await writeFile(path.join(root, "docs", "deep", "c.md"), "c");
  await writeFile(path.join(root, "node_modules", "pkg", "x.js"), "x");
  await symlink(path.join(root, "docs"), path.join(root, "linked"));
  await symlink(path.join(root, "a.txt"), path.join(root, "same.txt"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function seen(opts: Partial<WalkOptions> = {}): Promise<string[]> {
  const out: string[] = [];
  await walk(root, { rootReal: root, skipDirs: SKIPPED_DIRS, ...opts }, (e) => {
    out.push(`${path.relative(root, entryPath(e))} ${e.type}${e.targetType ? `>${e.targetType}` : ""}`);
  });
  return out.sort();
}

describe("walk", () => {
  it("follows a symlinked folder inside the root by default, and never enters skipped folders", async () => {
    // docs itself is not entered, so its files can only come through the link (under the target's real path).
    const all = await seen({ descendInto: (_dir, name) => name !== "docs" });
    expect(all).toContain("linked symlink>directory");
    expect(all).toContain("docs/b.md file");
    expect(all).toContain("same.txt symlink>file");
    expect(all).toContain("node_modules directory");
    expect(all.some((e) => e.startsWith("node_modules/"))).toBe(false);
  });

  it("with followDirLinks false lists a symlinked folder without walking into it", async () => {
    const all = await seen({ followDirLinks: false, descendInto: (_dir, name) => name !== "docs" });
    expect(all).toEqual([
      "a.txt file",
      "docs directory",
      "linked symlink>directory",
      "node_modules directory",
      "same.txt symlink>file",
    ]);
  });

  it("asks descendInto with the parent's real path and the folder's name before each descent", async () => {
    const asked: string[] = [];
    const all = await seen({
      descendInto: (dir, name) => {
        asked.push(path.relative(root, path.join(dir, name)));
        return name !== "deep";
      },
    });
    expect(all).toContain("docs/deep directory");
    expect(all.some((e) => e.startsWith("docs/deep/"))).toBe(false);
    expect(asked).toEqual(expect.arrayContaining(["docs", "docs/deep", "linked"]));
    expect(asked).not.toContain("node_modules");
  });
});
