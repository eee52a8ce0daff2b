import { execFileSync } from "node:child_process";
import { closeSync, fstatSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../tool-names.js";
import { type FsError, isFsError } from "./fs-error.js";
import { isInside, PathPolicy, type PathIntent, type ResolvedPath, resolveRoots } from "./path-policy.js";

/*
 * Fixture (real directories under os.tmpdir()):
 *
 *   tmp/base/project_root/        the project root (writable)
 *   tmp/base/generated_assets/    the assets root (writable)
 *   tmp/base/project_root2/       a sibling whose name has project_root as a prefix (secret.txt)
 *   tmp/base/outside/secret.txt   something that must never be reachable
 *   tmp/base/project_link ->      project_root (a root configured through a symlink)
 */

let tmp: string;
let base: string;
let P: string; // project_root (real)
let A: string; // generated_assets (real)
let P2: string; // project_root2
let O: string; // outside
let policy: PathPolicy;
let linkedPolicy: PathPolicy;
let readOnlyProjectPolicy: PathPolicy;
let socketServer: net.Server | undefined;
let haveDevice = false;

const NFC_CAFE = "caf\u00e9.txt";
const NFD_CAFE = "cafe\u0301.txt";
const UNICODE_FILE = "donn\u00e9es/na\u00efve caf\u00e9.csv"; // NFC on disk
const UNICODE_FILE_NFD = UNICODE_FILE.normalize("NFD");
const EMOJI_FILE = "📊 report 🚀.txt";
const TRAILING_SPACE_FILE = "trailing.txt ";
const QUOTED_FILE = '"quoted".txt';
const APOSTROPHE_FILE = "it's.txt";
const DANGLING_TARGET_NAME = "no-such-target-7f3a.txt";
const DANGLING_DIR_TARGET_NAME = "no-such-dir-9c1e";

const ALLOWED_HINT = /Allowed: project_root \(relative paths\) and generated_assets\//;

async function put(file: string, content = path.basename(file)): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

/** Awaits a policy call that must fail and returns the FsError (a raw Node error fails the test). */
async function failure(p: Promise<unknown>, ms = 5_000): Promise<FsError> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`policy did not settle within ${ms} ms`)), ms);
  });
  const outcome = await Promise.race([
    p.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
  if (outcome.ok) {
    const v = outcome.value as Partial<ResolvedPath>;
    throw new Error(`expected a rejection, but the policy accepted it as ${String(v.abs)}`);
  }
  if (!isFsError(outcome.error)) throw outcome.error;
  return outcome.error;
}

/**
 * A path that must be treated literally and does not exist: the policy may either reject it with
 * not_found or accept it as a not-yet-existing file (stats undefined) at exactly `expectedAbs`
 * — never map it to some other existing file.
 */
async function expectMissingLiteral(input: string, expectedAbs: string, intent: PathIntent = "read"): Promise<void> {
  const outcome = await policy.resolve(input, intent).then(
    (r) => ({ ok: true as const, r }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  if (!outcome.ok) {
    expect(isFsError(outcome.e) && outcome.e.code).toBe("not_found");
    return;
  }
  expect(outcome.r.stats).toBeUndefined();
  expect(outcome.r.root.name).toBe(ROOT.project);
  expect(outcome.r.abs).toBe(expectedAbs);
  expect(isInside(P, outcome.r.abs)).toBe(true);
  await expect(readFile(outcome.r.abs)).rejects.toMatchObject({ code: "ENOENT" });
}

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), "textide-path-policy-")));
  base = path.join(tmp, "base");
  P = path.join(base, "project_root");
  A = path.join(base, "generated_assets");
  P2 = path.join(base, "project_root2");
  O = path.join(base, "outside");

  // project_root: ordinary and awkward names
  await put(path.join(P, "README.md"), "readme");
  await put(path.join(P, "data", "planets.csv"), "name,mass\n");
  await put(path.join(P, "data", "nested", "deep.txt"));
  await put(path.join(P, UNICODE_FILE), "a,b\n");
  await put(path.join(P, NFC_CAFE), "nfc");
  await put(path.join(P, NFD_CAFE), "nfd");
  await put(path.join(P, EMOJI_FILE));
  await put(path.join(P, TRAILING_SPACE_FILE), "with trailing space");
  await put(path.join(P, QUOTED_FILE));
  await put(path.join(P, APOSTROPHE_FILE));
  await put(path.join(P, "%2e%2e", "x.txt"), "literal percent dir");
  await put(path.join(P, "..foo"), "dotdot-prefixed name");

  // the other roots and places that must stay unreachable
  await put(path.join(A, "x.png"), "png");
  await mkdir(path.join(A, "sub"), { recursive: true });
  await put(path.join(P2, "secret.txt"), "P2 SECRET");
  await put(path.join(O, "secret.txt"), "OUTSIDE SECRET");

  // symlinks inside project_root
  await symlink("README.md", path.join(P, "link-file-in"));
  await symlink("data", path.join(P, "link-dir-in"));
  await symlink(path.join(O, "secret.txt"), path.join(P, "link-file-out"));
  await symlink(O, path.join(P, "link-dir-out"));
  await symlink("../project_root2", path.join(P, "link-to-p2"));
  await symlink(A, path.join(P, "link-to-assets"));
  await symlink("/dev/null", path.join(P, "link-dev-null"));
  await symlink(path.join(O, DANGLING_TARGET_NAME), path.join(P, "dangling"));
  await symlink(path.join(O, DANGLING_DIR_TARGET_NAME), path.join(P, "dangling-dir"));
  await symlink("loop-b", path.join(P, "loop-a"));
  await symlink("loop-a", path.join(P, "loop-b"));
  await symlink("self-loop", path.join(P, "self-loop"));

  // special files
  execFileSync("mkfifo", [path.join(P, "fifo")]);
  await symlink("fifo", path.join(P, "link-to-fifo"));
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path.join(P, "sock"), () => resolve());
  });
  socketServer = server;
  try {
    execFileSync("mknod", [path.join(P, "chardev"), "c", "1", "3"], { stdio: "ignore" });
    haveDevice = true;
  } catch {
    haveDevice = false; // no CAP_MKNOD: the device case is skipped
  }

  // project_root configured through a symlink
  await symlink(P, path.join(base, "project_link"));

  policy = new PathPolicy(
    await resolveRoots([
      { name: ROOT.project, path: P, writable: true },
      { name: ROOT.assets, path: A, writable: true },
    ]),
  );
  linkedPolicy = new PathPolicy(
    await resolveRoots([
      { name: ROOT.project, path: path.join(base, "project_link"), writable: true },
      { name: ROOT.assets, path: A, writable: true },
    ]),
  );
  readOnlyProjectPolicy = new PathPolicy(
    await resolveRoots([
      { name: ROOT.project, path: P, writable: false },
      { name: ROOT.assets, path: A, writable: true },
    ]),
  );
});

afterAll(async () => {
  if (socketServer) await new Promise<void>((resolve) => socketServer!.close(() => resolve()));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("isInside", () => {
  it.each([
    ["/a/root", "/a/root", true, "the same path"],
    ["/a/root", "/a/root/x", true, "a direct child"],
    ["/a/root", "/a/root/x/y/z", true, "a deep descendant"],
    ["/a/root/", "/a/root/x", true, "a child when the parent has a trailing slash"],
    ["/a/root", "/a/root/./x", true, "a child written with a `.` segment"],
    ["/a/root", "/a/root/..foo", true, "a child whose name starts with `..`"],
    ["/a/root", "/a/root/...", true, "a child named `...`"],
    ["/a/root", "/a/root2", false, "a sibling with the same prefix"],
    ["/a/root", "/a/root2/x", false, "a file in a sibling with the same prefix"],
    ["/a/root", "/a/roo", false, "a sibling that is a prefix of the root"],
    ["/a/root", "/a", false, "the parent"],
    ["/a/root", "/a/root/../root2", false, "a path that climbs out with `..`"],
    ["/a/root", "/b/root", false, "an unrelated tree"],
    ["/", "/etc", true, "anything below the file-system root"],
  ])("isInside(%j, %j) is %s (%s)", (parent, child, expected) => {
    expect(isInside(parent, child)).toBe(expected);
  });

  it("agrees with the path.relative definition on every combination of awkward segments", () => {
    const byRelative = (parent: string, child: string) => {
      const rel = path.relative(parent, child);
      return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
    };
    const segments = ["a", "root", "root2", "roo", "..", ".", ".x", "", "..y"];
    const paths = ["/"];
    for (const x of segments)
      for (const y of segments) paths.push(`/${x}`, `/${x}/${y}`, `/a/${x}/${y}`, `/a/root/${x}/${y}/`);
    let compared = 0;
    for (const parent of paths) {
      for (const child of paths) {
        expect([parent, child, isInside(parent, child)]).toEqual([parent, child, byRelative(parent, child)]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(40_000);
  });
});

describe("relative paths resolve against project_root", () => {
  it.each([
    ["README.md", "README.md", "README.md"],
    ["data/planets.csv", "data/planets.csv", "data/planets.csv"],
    ["./data/planets.csv", "data/planets.csv", "data/planets.csv"],
    ["data//planets.csv", "data/planets.csv", "data/planets.csv"],
    ["data/nested/deep.txt", "data/nested/deep.txt", "data/nested/deep.txt"],
    ["data/../README.md", "README.md", "README.md"],
    ["data/nested/../../README.md", "README.md", "README.md"],
    [".", "", "."],
    ["data/", "data", "data"],
    ["..foo", "..foo", "..foo"],
    [UNICODE_FILE, UNICODE_FILE, UNICODE_FILE],
    [EMOJI_FILE, EMOJI_FILE, EMOJI_FILE],
    [TRAILING_SPACE_FILE, TRAILING_SPACE_FILE, TRAILING_SPACE_FILE],
    [QUOTED_FILE, QUOTED_FILE, QUOTED_FILE],
    [APOSTROPHE_FILE, APOSTROPHE_FILE, APOSTROPHE_FILE],
    ["%2e%2e/x.txt", "%2e%2e/x.txt", "%2e%2e/x.txt"],
  ])("accepts %j as exactly project_root/%j", async (input, rel, display) => {
    const r = await policy.resolve(input, "read");
    expect(r.root.name).toBe(ROOT.project);
    expect(r.abs).toBe(path.join(P, rel));
    expect(r.display).toBe(display);
    expect(r.stats?.isFile() || r.stats?.isDirectory()).toBe(true);
  });

  it("keeps NFC and NFD names apart: each form resolves to its own file", async () => {
    const nfc = await policy.resolve(NFC_CAFE, "read");
    const nfd = await policy.resolve(NFD_CAFE, "read");
    expect(nfc.abs).toBe(path.join(P, NFC_CAFE));
    expect(nfd.abs).toBe(path.join(P, NFD_CAFE));
    expect(nfc.display).toBe(NFC_CAFE);
    expect(nfd.display).toBe(NFD_CAFE);
    expect(await readFile(nfc.abs, "utf8")).toBe("nfc");
    expect(await readFile(nfd.abs, "utf8")).toBe("nfd");
  });

  it("does not normalise an NFD spelling onto an NFC-only file", async () => {
    expect(UNICODE_FILE_NFD).not.toBe(UNICODE_FILE);
    await expectMissingLiteral(UNICODE_FILE_NFD, path.join(P, UNICODE_FILE_NFD));
  });
});

describe("no lossy normalisation: quotes, spaces and encodings are literal", () => {
  it.each([
    ['"README.md"', "surrounding double quotes"],
    ["'README.md'", "surrounding single quotes"],
    ["README.md ", "a trailing space"],
    [" README.md", "a leading space"],
    ["README.md\n", "a trailing newline"],
    ["README.md\t", "a trailing tab"],
    ["README.MD", "different case"],
    ["trailing.txt", "the trailing-space file's name without its space"],
    ["%2e%2e/%2e%2e/outside/secret.txt", "URL-encoded `..` segments"],
    ["%2e%2e%2f%2e%2e%2foutside%2fsecret.txt", "URL-encoded separators"],
    ["..%2f..%2foutside%2fsecret.txt", "a `..` prefix with encoded separators"],
    ["~notes.txt", "a tilde that is not a home path"],
  ])("treats %j (%s) as a literal, missing name inside project_root", async (input) => {
    await expectMissingLiteral(input, path.join(P, input));
  });

  it("resolves a name with a trailing space to exactly that file, never to the trimmed name", async () => {
    const r = await policy.resolve(TRAILING_SPACE_FILE, "read");
    expect(r.abs).toBe(path.join(P, "trailing.txt "));
    expect(await readFile(r.abs, "utf8")).toBe("with trailing space");
  });

  it("never resolves a quoted README to the real README, even for writes", async () => {
    const r = await policy.resolve('"README.md"', "write");
    expect(r.abs).toBe(path.join(P, '"README.md"'));
    expect(r.stats).toBeUndefined();
  });
});

describe("paths that escape project_root are rejected with outside_root", () => {
  it.each([
    "../project_root2/secret.txt",
    "data/../../outside/secret.txt",
    "data/nested/../../../project_root2/secret.txt",
    "../outside/secret.txt",
    "..",
    "../",
    "./../project_root2",
    `${"../".repeat(2000)}etc/passwd`,
    "generated_assets/..",
    "generated_assets/../project_root2/secret.txt",
    "generated_assets/../../outside/secret.txt",
  ])("rejects %j", async (input) => {
    const err = await failure(policy.resolve(input, "read"));
    expect(err.code).toBe("outside_root");
    expect(err.message).toMatch(ALLOWED_HINT);
  });

  it("also rejects an escaping path for writes and directory creation", async () => {
    expect((await failure(policy.resolve("../outside/new.txt", "write"))).code).toBe("outside_root");
    expect((await failure(policy.resolve("../outside/newdir", "create-dir"))).code).toBe("outside_root");
  });
});

describe("absolute paths", () => {
  it("accepts an absolute path inside project_root and displays it relative", async () => {
    const r = await policy.resolve(path.join(P, "data", "planets.csv"), "read");
    expect(r.root.name).toBe(ROOT.project);
    expect(r.abs).toBe(path.join(P, "data", "planets.csv"));
    expect(r.display).toBe("data/planets.csv");
  });

  it("accepts the absolute project_root itself as `.`", async () => {
    const r = await policy.resolve(P, "read");
    expect(r.abs).toBe(P);
    expect(r.display).toBe(".");
  });

  it("accepts an absolute path inside generated_assets and displays it with the root prefix", async () => {
    const r = await policy.resolve(path.join(A, "x.png"), "read");
    expect(r.root.name).toBe(ROOT.assets);
    expect(r.display).toBe("generated_assets/x.png");
  });

  it.each([["/etc/passwd"], ["/dev/null"], ["/"], ["/tmp"]])(
    "rejects %j outside the roots and says what is allowed",
    async (input) => {
      const err = await failure(policy.resolve(input, "read"));
      expect(err.code).toBe("outside_root");
      expect(err.message).toMatch(ALLOWED_HINT);
      expect(err.message).toContain(JSON.stringify(input));
    },
  );

  it("blocks a sibling root with the same prefix (project_root2)", async () => {
    const err = await failure(policy.resolve(path.join(P2, "secret.txt"), "read"));
    expect(err.code).toBe("outside_root");
    expect((await failure(policy.resolve(`${P}2`, "read"))).code).toBe("outside_root");
  });

  it("blocks an absolute path that climbs out of the root with `..`", async () => {
    const err = await failure(policy.resolve(`${P}/../outside/secret.txt`, "read"));
    expect(err.code).toBe("outside_root");
  });

  it("blocks the parent of both roots and the outside directory", async () => {
    expect((await failure(policy.resolve(base, "read"))).code).toBe("outside_root");
    expect((await failure(policy.resolve(path.join(O, "secret.txt"), "read"))).code).toBe("outside_root");
  });
});

describe("home paths", () => {
  it.each(["~", "~/x", "~/.ssh/id_rsa", "~/"])("rejects %j with outside_root", async (input) => {
    const err = await failure(policy.resolve(input, "read"));
    expect(err.code).toBe("outside_root");
    expect(err.message).toContain("project_root");
  });

  it("rejects home paths for writes too", async () => {
    expect((await failure(policy.resolve("~/x", "write"))).code).toBe("outside_root");
  });
});

describe("invalid input", () => {
  it.each([
    ["a\0b", "read"],
    ["README.md\0.png", "read"],
    ["\0", "read"],
    ["data/\0/x", "write"],
    [`${P}/README.md\0`, "read"],
  ] as [string, PathIntent][])("rejects a NUL byte in %j (%s) with invalid_path", async (input, intent) => {
    const err = await failure(policy.resolve(input, intent));
    expect(err.code).toBe("invalid_path");
  });

  it("rejects a non-string path with invalid_path", async () => {
    const err = await failure(policy.resolve(42 as unknown as string, "read"));
    expect(err.code).toBe("invalid_path");
  });

  it("handles a 300-character segment without crashing (invalid_path or missing)", async () => {
    for (const intent of ["read", "write"] as const) {
      const input = `${"x".repeat(300)}.txt`;
      const outcome = await policy.resolve(input, intent).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      if (outcome.ok) {
        expect(outcome.r.stats).toBeUndefined();
        expect(isInside(P, outcome.r.abs)).toBe(true);
      } else {
        expect(isFsError(outcome.e)).toBe(true);
        expect(["invalid_path", "not_found"]).toContain((outcome.e as FsError).code);
      }
    }
  });

  it("handles a 5000-character path without crashing (invalid_path or missing)", async () => {
    for (const input of ["abcd/".repeat(1000), `data/${"a".repeat(5000)}`]) {
      const outcome = await policy.resolve(input, "write").then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      if (outcome.ok) {
        expect(outcome.r.stats).toBeUndefined();
        expect(isInside(P, outcome.r.abs)).toBe(true);
      } else {
        expect(isFsError(outcome.e)).toBe(true);
        expect(["invalid_path", "not_found"]).toContain((outcome.e as FsError).code);
        expect((outcome.e as FsError).message.length).toBeLessThan(1000);
      }
    }
  });
});

describe("generated_assets", () => {
  it("maps generated_assets/x.png to the assets root with display generated_assets/x.png", async () => {
    const r = await policy.resolve("generated_assets/x.png", "read");
    expect(r.root.name).toBe(ROOT.assets);
    expect(r.abs).toBe(path.join(A, "x.png"));
    expect(r.display).toBe("generated_assets/x.png");
    expect(r.stats?.isFile()).toBe(true);
  });

  it.each(["generated_assets", "generated_assets/", "generated_assets/."])(
    "maps %j alone to the assets root itself",
    async (input) => {
      const r = await policy.resolve(input, "read");
      expect(r.root.name).toBe(ROOT.assets);
      expect(r.abs).toBe(A);
      expect(r.display).toBe("generated_assets");
      expect(r.stats?.isDirectory()).toBe(true);
    },
  );

  it("treats a doubled separator after generated_assets like a single one", async () => {
    const r = await policy.resolve("generated_assets//x.png", "read");
    expect(r.root.name).toBe(ROOT.assets);
    expect(r.abs).toBe(path.join(A, "x.png"));
    expect(r.display).toBe("generated_assets/x.png");
  });

  it("keeps generated_assets//etc/passwd inside the assets root (a literal, missing name)", async () => {
    const r = await policy.resolve("generated_assets//etc/passwd", "read");
    expect(r.root.name).toBe(ROOT.assets);
    expect(r.abs).toBe(path.join(A, "etc", "passwd"));
    expect(r.display).toBe("generated_assets/etc/passwd");
    expect(r.stats).toBeUndefined();
  });

  it("allows a new file in a new subfolder of the assets root for writes", async () => {
    const r = await policy.resolve("generated_assets/charts/2024/plot.png", "write");
    expect(r.root.name).toBe(ROOT.assets);
    expect(r.abs).toBe(path.join(A, "charts", "2024", "plot.png"));
    expect(r.display).toBe("generated_assets/charts/2024/plot.png");
    expect(r.stats).toBeUndefined();
  });

  it("does not treat a later `generated_assets` segment as the assets root", async () => {
    await expectMissingLiteral("data/generated_assets/x.png", path.join(P, "data", "generated_assets", "x.png"));
  });
});

describe("symbolic links (read)", () => {
  it("allows a file symlink that points inside the root and reports the link's display path", async () => {
    const r = await policy.resolve("link-file-in", "read");
    expect(r.abs).toBe(path.join(P, "README.md"));
    expect(r.display).toBe("link-file-in");
    expect(r.stats?.isFile()).toBe(true);
  });

  it("allows a directory symlink that points inside the root", async () => {
    const dir = await policy.resolve("link-dir-in", "read");
    expect(dir.abs).toBe(path.join(P, "data"));
    expect(dir.stats?.isDirectory()).toBe(true);
    const file = await policy.resolve("link-dir-in/planets.csv", "read");
    expect(file.abs).toBe(path.join(P, "data", "planets.csv"));
    expect(file.display).toBe("link-dir-in/planets.csv");
  });

  it.each([
    ["link-file-out", "a file symlink to outside"],
    ["link-dir-out", "a directory symlink to outside"],
    ["link-dir-out/secret.txt", "a file below a directory symlink to outside"],
    ["link-to-p2/secret.txt", "a file below a symlink to the same-prefix sibling"],
    ["link-to-assets/x.png", "a project_root link into generated_assets (containment is per root)"],
    ["link-dev-null", "a symlink to /dev/null"],
  ])("rejects %j (%s) with outside_root without revealing the target", async (input) => {
    const err = await failure(policy.resolve(input, "read"));
    expect(err.code).toBe("outside_root");
    expect(err.message).toMatch(ALLOWED_HINT);
    expect(err.message).not.toContain(O);
    expect(err.message).not.toContain(P2);
  });

  it("refuses a dangling symlink that points outside the root, without revealing its target", async () => {
    const err = await failure(policy.resolve("dangling", "read"));
    expect(err.code).toBe("outside_root");
    expect(err.message).not.toContain(DANGLING_TARGET_NAME);
    expect(err.message).not.toContain(O);
  });

  it("reports a dangling symlink inside the root as not_found", async () => {
    await symlink(path.join(P, "no-such-file.txt"), path.join(P, "dangling-inside"));
    const err = await failure(policy.resolve("dangling-inside", "read"));
    expect(err.code).toBe("not_found");
  });

  it.each(["loop-a", "self-loop"])("fails on the symlink loop %j instead of hanging", async (input) => {
    const err = await failure(policy.resolve(input, "read"));
    expect(["not_found", "invalid_path"]).toContain(err.code);
  });

  it("fails with invalid_path on a path that goes through a symlink loop", async () => {
    const err = await failure(policy.resolve("loop-a/x.txt", "read"));
    expect(err.code).toBe("invalid_path");
  });
});

describe("symbolic links (write)", () => {
  it.each([
    ["link-file-in", "a file symlink inside the root"],
    ["link-dir-in", "a directory symlink inside the root"],
    ["link-file-out", "a file symlink to outside"],
    ["loop-a", "a looping symlink"],
  ])("denies writing to the symlink %j (%s) at the final component", async (input) => {
    const err = await failure(policy.resolve(input, "write"));
    expect(err.code).toBe("denied");
  });

  it("denies writing through a dangling symlink without revealing its target", async () => {
    const err = await failure(policy.resolve("dangling", "write"));
    expect(err.code).toBe("denied");
    expect(err.message).not.toContain(DANGLING_TARGET_NAME);
    expect(err.message).not.toContain(O);
  });

  it.each([
    ["link-dir-out/new.txt", "write"],
    ["link-dir-out/a/b/new.txt", "write"],
    ["link-dir-out/secret.txt", "write"],
    ["link-dir-out/newdir", "create-dir"],
    ["link-to-p2/new.txt", "write"],
  ] as [string, PathIntent][])("rejects %j (%s) below a directory symlink to outside", async (input, intent) => {
    const err = await failure(policy.resolve(input, intent));
    expect(err.code).toBe("outside_root");
    expect(err.message).not.toContain(O);
  });

  it("rejects a new file below a dangling directory symlink without revealing the target", async () => {
    const err = await failure(policy.resolve("dangling-dir/new.txt", "write"));
    expect(["not_found", "outside_root", "denied"]).toContain(err.code);
    expect(err.message).not.toContain(DANGLING_DIR_TARGET_NAME);
    expect(err.message).not.toContain(O);
  });

  it("rejects a new file below a symlink loop", async () => {
    const err = await failure(policy.resolve("loop-a/new.txt", "write"));
    expect(["invalid_path", "not_found"]).toContain(err.code);
  });

  it("allows a new file below a directory symlink inside the root and returns the real path", async () => {
    const r = await policy.resolve("link-dir-in/new.txt", "write");
    expect(r.abs).toBe(path.join(P, "data", "new.txt"));
    expect(r.display).toBe("link-dir-in/new.txt");
    expect(r.stats).toBeUndefined();
  });
});

describe("device files, FIFOs and sockets", () => {
  it.each([
    ["fifo", "read"],
    ["fifo", "write"],
    ["link-to-fifo", "read"],
    ["sock", "read"],
    ["sock", "write"],
  ] as [string, PathIntent][])("denies %j (%s)", async (input, intent) => {
    const err = await failure(policy.resolve(input, intent));
    expect(err.code).toBe("denied");
  });

  it("denies a character device inside the root", async (ctx) => {
    if (!haveDevice) ctx.skip();
    const err = await failure(policy.resolve("chardev", "read"));
    expect(err.code).toBe("denied");
  });

  it("rejects the absolute /dev/null as outside_root", async () => {
    expect((await failure(policy.resolve("/dev/null", "write"))).code).toBe("outside_root");
  });
});

describe("writes and new files", () => {
  it("allows a new file in non-existent nested directories, inside the root, without creating them", async () => {
    const r = await policy.resolve("a/b/c/new.txt", "write");
    expect(r.root.name).toBe(ROOT.project);
    expect(r.abs).toBe(path.join(P, "a", "b", "c", "new.txt"));
    expect(isInside(P, r.abs)).toBe(true);
    expect(r.display).toBe("a/b/c/new.txt");
    expect(r.stats).toBeUndefined();
    await expect(stat(path.join(P, "a"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("allows creating a new nested directory", async () => {
    const r = await policy.resolve("reports/2024/q1", "create-dir");
    expect(r.abs).toBe(path.join(P, "reports", "2024", "q1"));
    expect(r.stats).toBeUndefined();
  });

  it("returns the lstat of an existing regular file for a write", async () => {
    const r = await policy.resolve("README.md", "write");
    expect(r.abs).toBe(path.join(P, "README.md"));
    expect(r.stats?.isFile()).toBe(true);
  });

  it("rejects a new file below an existing file with not_a_directory", async () => {
    const err = await failure(policy.resolve("README.md/child.txt", "write"));
    expect(err.code).toBe("not_a_directory");
  });

  it("rejects writes to a read-only project_root but still allows reads and asset writes", async () => {
    expect((await failure(readOnlyProjectPolicy.resolve("README.md", "write"))).code).toBe("read_only");
    expect((await failure(readOnlyProjectPolicy.resolve("newdir", "create-dir"))).code).toBe("read_only");
    expect((await readOnlyProjectPolicy.resolve("README.md", "read")).abs).toBe(path.join(P, "README.md"));
    expect((await readOnlyProjectPolicy.resolve("generated_assets/y.png", "write")).abs).toBe(path.join(A, "y.png"));
  });
});

describe("project_root configured through a symlink", () => {
  it("stores the configured form and compares against the real directory", () => {
    expect(linkedPolicy.project.configured).toBe(path.join(base, "project_link"));
    expect(linkedPolicy.project.real).toBe(P);
  });

  it("resolves relative paths into the real directory with the usual display", async () => {
    const r = await linkedPolicy.resolve("data/planets.csv", "read");
    expect(r.abs).toBe(path.join(P, "data", "planets.csv"));
    expect(r.display).toBe("data/planets.csv");
  });

  it.each([
    ["the configured (symlinked) form", () => path.join(base, "project_link", "README.md")],
    ["the realpath form", () => path.join(P, "README.md")],
  ])("accepts an absolute path in %s", async (_, input) => {
    const r = await linkedPolicy.resolve(input(), "read");
    expect(r.root.name).toBe(ROOT.project);
    expect(r.abs).toBe(path.join(P, "README.md"));
    expect(r.display).toBe("README.md");
  });

  it("displays the configured root itself as `.`", async () => {
    const r = await linkedPolicy.resolve(path.join(base, "project_link"), "read");
    expect(r.abs).toBe(P);
    expect(r.display).toBe(".");
  });

  it("still rejects escapes and outside symlinks", async () => {
    expect((await failure(linkedPolicy.resolve(`${base}/project_link/../project_root2/secret.txt`, "read"))).code).toBe(
      "outside_root",
    );
    expect((await failure(linkedPolicy.resolve(`${base}/project_link2/x`, "read"))).code).toBe("outside_root");
    expect((await failure(linkedPolicy.resolve("link-file-out", "read"))).code).toBe("outside_root");
    expect((await failure(linkedPolicy.resolve("link-dir-out/new.txt", "write"))).code).toBe("outside_root");
  });

  it("places new files inside the real root", async () => {
    const r = await linkedPolicy.resolve(path.join(base, "project_link", "new", "file.txt"), "write");
    expect(r.abs).toBe(path.join(P, "new", "file.txt"));
    expect(r.display).toBe("new/file.txt");
  });
});

describe("root configuration", () => {
  it("fails fast naming a missing root directory", async () => {
    const missing = path.join(tmp, "does-not-exist");
    await expect(resolveRoots([{ name: ROOT.project, path: missing, writable: true }])).rejects.toThrow(missing);
  });

  it("refuses a root that is a file", async () => {
    await expect(
      resolveRoots([{ name: ROOT.project, path: path.join(P, "README.md"), writable: true }]),
    ).rejects.toThrow(/not a directory/);
  });

  it("requires a project_root", () => {
    expect(() => new PathPolicy([{ name: ROOT.assets, configured: A, real: A, writable: true }])).toThrow(
      /project_root/,
    );
  });
});

describe("openExisting: the descriptor-checked read path agrees with resolveExisting", () => {
  const inputs = (): string[] => [
    "README.md",
    ".",
    "data",
    "data/planets.csv",
    "data/nested/deep.txt",
    UNICODE_FILE,
    NFC_CAFE,
    NFD_CAFE,
    EMOJI_FILE,
    TRAILING_SPACE_FILE,
    "%2e%2e/x.txt",
    "generated_assets",
    "generated_assets/x.png",
    path.join(P, "README.md"),
    "link-file-in",
    "link-dir-in",
    "link-dir-in/planets.csv",
    "link-file-out",
    "link-dir-out",
    "link-dir-out/secret.txt",
    "link-to-p2/secret.txt",
    "link-to-assets/x.png",
    "link-dev-null",
    "dangling",
    "dangling-dir/x.txt",
    "loop-a",
    "self-loop",
    "loop-a/x.txt",
    "fifo",
    "link-to-fifo",
    "sock",
    ...(haveDevice ? ["chardev"] : []),
    "missing.txt",
    "README.md/x",
    "../outside/secret.txt",
    "/etc/passwd",
    "~/x",
    "a\0b",
  ];

  it("accepts and refuses exactly the same paths, with the same error codes", async () => {
    for (const input of inputs()) {
      const expected = await policy.resolveExisting(input).then(
        (r) => ({ ok: true as const, abs: r.abs, display: r.display, root: r.root.name, dir: r.stats.isDirectory() }),
        (e: unknown) => ({ ok: false as const, code: isFsError(e) ? e.code : String(e) }),
      );
      // A FIFO must be refused at once: failure() would time out if opening it waited for a writer.
      const actual = await policy.openExisting(input).then(
        (o) => {
          try {
            return { ok: true as const, abs: o.abs, display: o.display, root: o.root.name, dir: o.stats.isDirectory() };
          } finally {
            closeSync(o.fd);
          }
        },
        (e: unknown) => ({ ok: false as const, code: isFsError(e) ? e.code : String(e) }),
      );
      expect({ input, ...actual }).toEqual({ input, ...expected });
    }
  });

  it("returns the descriptor of the file it checked, with its stats", async () => {
    for (const input of ["README.md", "link-file-in", "link-dir-in/planets.csv", EMOJI_FILE]) {
      const o = await policy.openExisting(input);
      try {
        expect(fstatSync(o.fd, { bigint: true }).ino).toBe(o.stats.ino);
        expect(readFileSync(o.fd, "utf8")).toBe(await readFile(o.abs, "utf8"));
      } finally {
        closeSync(o.fd);
      }
    }
  });

  it("refuses a file below a root configured through a symlink only when it leaves that root", async () => {
    const o = await linkedPolicy.openExisting(path.join(base, "project_link", "data", "planets.csv"));
    closeSync(o.fd);
    expect(o.abs).toBe(path.join(P, "data", "planets.csv"));
    expect((await failure(linkedPolicy.openExisting("link-dir-out/secret.txt"))).code).toBe("outside_root");
  });
});
