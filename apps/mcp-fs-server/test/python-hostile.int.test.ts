// Hostile code through the real MCP protocol: each case asserts that the attack is contained AND
// that the server still answers (a tool call and a fresh Python run) afterwards.
import { readdirSync, readFileSync } from "node:fs";
import { readFile, stat, symlink, writeFile } from "node:fs/promises";
import dgram from "node:dgram";
import net from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPythonOutput, TOOL, type RunPythonOutput } from "@textide/shared";
import { createLogger } from "../src/log.js";
import { createFsServer, type FsServer } from "../src/server.js";
import { pythonUnavailableHere } from "./helpers/python.js";
import { makeWorkspace, type TmpWorkspace } from "./helpers/tmp-root.js";

const SECRET = `textide-secret-${process.pid}-${Date.now()}`;
const unavailable = await pythonUnavailableHere();

let ws: TmpWorkspace;
let fs: FsServer;
let client: Client;
let closeServer: () => Promise<void>;
let listener: net.Server;
let port = 0;
let connections = 0;
let planets: Buffer;

beforeAll(async () => {
  // The server's own environment holds a secret that Python must never see.
  process.env.TEXTIDE_HOSTILE_SECRET = SECRET;
  ws = await makeWorkspace({ "data/note.txt": "project note" });
  await writeFile(path.join(ws.base, "outside-secret.txt"), SECRET);
  await symlink(path.join(ws.base, "outside-secret.txt"), path.join(ws.project, "data/leak.txt"));
  await symlink(path.join(ws.base, "outside-secret.txt"), path.join(ws.project, "top-leak.txt"));
  planets = await readFile(path.join(ws.project, "data/planets.xlsx"));
  listener = net.createServer((s) => {
    connections++;
    s.end("hello from the host\n");
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  port = (listener.address() as net.AddressInfo).port;
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  fs = await createFsServer({
    projectRoot: ws.project,
    assetsRoot: ws.assets,
    log: createLogger("info", sink),
    exec: { auditLog: path.join(ws.base, "audit", "exec.jsonl"), sandbox: "auto" },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(fs.factory, { transport: serverSide });
  client = new Client({ name: "hostile-test", version: "1.0.0" });
  await client.connect(clientSide);
  closeServer = async () => {
    await client.close();
    await handle.close();
    await fs.close();
  };
}, 60_000);

afterAll(async () => {
  delete process.env.TEXTIDE_HOSTILE_SECRET;
  await closeServer?.();
  await new Promise((r) => listener?.close(r));
  await ws?.cleanup();
});

async function py(code: string, opts: { timeoutMs?: number; memoryMb?: number } = {}) {
  const r = await client.callTool({ name: TOOL.runPython, arguments: { code, ...opts } });
  const out: RunPythonOutput = runPythonOutput.parse(r.structuredContent);
  return out;
}

/** The server answers a file tool call and a fresh Python run, and the project is untouched. */
async function expectAlive(): Promise<void> {
  const listed = await client.callTool({ name: TOOL.listDirectory, arguments: { path: "data" } });
  expect(listed.isError).toBeFalsy();
  expect(await py("6 * 7")).toMatchObject({ ok: true, result: 42 });
  expect((await readFile(path.join(ws.project, "data/planets.xlsx"))).equals(planets)).toBe(true);
}

interface Proc {
  pid: number;
  ppid: number;
  cmd: string;
}

/** Every process below the sandboxes' outer bwrap processes. */
function sandboxProcesses(): Proc[] {
  const found: Proc[] = [];
  const stack = [...fs.ctx.python!.pool.pids()];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const kids = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
        for (const kid of kids.map(Number)) {
          const cmd = readFileSync(`/proc/${kid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
          found.push({ pid: kid, ppid: pid, cmd });
          stack.push(kid);
        }
      }
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * No process of a finished run is left. Allowed per sandbox: bwrap's init, the zygote, and the
 * zygote's one pre-forked spare child (same command line, no children of its own).
 */
function expectNoLeftovers(): Promise<void> {
  // Checked at once: the call answers only after the run's last process is gone.
  const procs = sandboxProcesses();
  const isPython = (p: Proc) => p.cmd.startsWith("/usr/bin/python3");
  expect(procs.filter((p) => !isPython(p) && !p.cmd.startsWith("bwrap"))).toEqual([]);
  const pythonPids = new Set(procs.filter(isPython).map((p) => p.pid));
  for (const zygote of procs.filter((p) => isPython(p) && !pythonPids.has(p.ppid))) {
    const spares = procs.filter((p) => p.ppid === zygote.pid);
    expect(spares.length).toBeLessThanOrEqual(1);
    for (const spare of spares) expect(procs.filter((p) => p.ppid === spare.pid)).toEqual([]);
  }
  return Promise.resolve();
}

function hostHasProcess(marker: string): boolean {
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) return true;
    } catch {
      // exited
    }
  }
  return false;
}

describe.skipIf(unavailable !== undefined)("exec_run_python against hostile code", () => {
  describe("network", () => {
    it("cannot reach a TCP server listening on the host's loopback", async () => {
      const r = await py(
        `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2).recv(100)\n    err = "connected"\nexcept OSError as e:\n    err = type(e).__name__\nerr`,
      );
      expect(r.result).not.toBe("connected");
      expect(connections).toBe(0);
      await expectAlive();
    });

    it("has no interface but its own loopback, and resolves no names", async () => {
      const r = await py(
        'import socket\nnames = [n for _, n in socket.if_nameindex()]\ntry:\n    socket.getaddrinfo("example.com", 80)\n    dns = "resolved"\nexcept OSError:\n    dns = "failed"\n[names, dns]',
      );
      expect(r.result).toEqual([["lo"], "failed"]);
      await expectAlive();
    });

    it("cannot send UDP to the host or reach a public address", async () => {
      const received: Buffer[] = [];
      const udp = dgram.createSocket("udp4");
      udp.on("message", (m) => received.push(m));
      await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
      const udpPort = udp.address().port;
      try {
        const r = await py(
          `import socket\nout = []\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b"x", ("127.0.0.1", ${udpPort}))\ntry:\n    socket.create_connection(("1.1.1.1", 80), timeout=2)\n    out.append("connected")\nexcept OSError as e:\n    out.append(e.errno)\nout`,
        );
        // The datagram went to the sandbox's own loopback; the public address is unreachable.
        expect(r.result).not.toContain("connected");
        await new Promise((res) => setTimeout(res, 200));
        expect(received).toEqual([]);
      } finally {
        udp.close();
      }
      await expectAlive();
    });
  });

  describe("files outside the roots", () => {
    it.each([["/etc/passwd"], ["/etc/shadow"], ["/home"], ["/root"], ["/work"]])("cannot see %s", async (p) => {
      const r = await py(`import os\nos.path.exists(${JSON.stringify(p)})`);
      expect(r.result).toBe(false);
      await expectAlive();
    });

    it("cannot read a file beside the workspace by its host path", async () => {
      const r = await py(`open(${JSON.stringify(path.join(ws.base, "outside-secret.txt"))}).read()`);
      expect(r.ok).toBe(false);
      expect(JSON.stringify(r)).not.toContain(SECRET);
      await expectAlive();
    });

    it("cannot follow a symlink in the project that points outside it", async () => {
      const inData = await py('open("data/leak.txt").read()');
      expect(inData.ok).toBe(false);
      const top = await py('import os\nos.path.lexists("top-leak.txt")');
      expect(top.result).toBe(false); // a top-level link out of the project is not even bound
      expect(JSON.stringify([inData, top])).not.toContain(SECRET);
      await expectAlive();
    });

    it("cannot reach the server's code or the host through /proc", async () => {
      const r = await py(
        "import os\npids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n[len(pids), os.path.exists('/proc/1/root/work'), open('/proc/1/cmdline').read()[:5]]",
      );
      const [count, hostRoot] = r.result as [number, boolean];
      expect(count).toBeLessThanOrEqual(4); // bwrap's init, the zygote, this run (and nothing of the host)
      expect(hostRoot).toBe(false);
      await expectAlive();
    });
  });

  describe("writes", () => {
    it.each([
      ["a project file", 'open("data/note.txt", "w").write("pwned")'],
      ["a new project file", 'open("data/new.txt", "w").write("pwned")'],
      ["the workspace root", 'open("new-top.txt", "w").write("pwned")'],
      ["a project deletion", 'import os\nos.remove("data/note.txt")'],
      ["/usr", 'open("/usr/pwned", "w").write("x")'],
      ["the zygote's code", 'open("/opt/textide/zygote.py", "a").write("x")'],
      ["/dev", 'open("/dev/pwned", "w").write("x")'],
    ])("cannot write to %s", async (_name, code) => {
      const r = await py(code);
      expect(r.ok).toBe(false);
      expect(["policy", "runtime"]).toContain(r.error?.kind);
      expect(await readFile(path.join(ws.project, "data/note.txt"), "utf8")).toBe("project note");
      await expect(stat(path.join(ws.project, "data/new.txt"))).rejects.toThrow();
      await expect(stat(path.join(ws.project, "new-top.txt"))).rejects.toThrow();
      await expectAlive();
    });

    it("a symlink planted in generated_assets is never followed out, neither by Python nor by the server", async () => {
      const outside = path.join(ws.base, "outside-secret.txt");
      const r = await py(
        `import os\nos.symlink(${JSON.stringify(outside)}, "generated_assets/evil.txt")\nos.symlink("/etc/hostname", "generated_assets/evil2.txt")\ntry:\n    open("generated_assets/evil.txt", "w").write("overwritten")\n    w = "wrote"\nexcept OSError as e:\n    w = e.errno\nw`,
      );
      expect(r.result).not.toBe("wrote");
      expect(await readFile(outside, "utf8")).toBe(SECRET);
      expect(r.outputs).toEqual([]); // the links are not outputs: the server does not follow them
      const read = await client.callTool({ name: TOOL.readFile, arguments: { path: "generated_assets/evil.txt" } });
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read)).not.toContain(SECRET);
      await expectAlive();
    });

    it("forged output paths on the report channel are checked by the path policy", async () => {
      const r = await py(
        'import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b\'W"../../outside-secret.txt"\\nW"../project_root/data/note.txt"\\n\')\n    except OSError:\n        pass\n"forged"',
      );
      expect(r.outputs).toEqual([]);
      await expectAlive();
    });
  });

  describe("environment and state", () => {
    it("sees none of the server's environment", async () => {
      const r = await py("import os\ndict(os.environ)");
      const env = r.result as Record<string, string>;
      expect(JSON.stringify(env)).not.toContain(SECRET);
      expect(Object.keys(env).sort()).toEqual(
        // bwrap adds PWD.
        [
          "HOME",
          "LANG",
          "MPLBACKEND",
          "MPLCONFIGDIR",
          "OMP_NUM_THREADS",
          "OPENBLAS_NUM_THREADS",
          "PATH",
          "PWD",
          "TMPDIR",
        ].sort(),
      );
      await expectAlive();
    });

    it("finds the secret in no process's environ or cmdline under /proc", async () => {
      const r = await py(
        `import os\nhits = []\nfor p in os.listdir("/proc"):\n    if not p.isdigit():\n        continue\n    for f in ("environ", "cmdline"):\n        try:\n            if ${JSON.stringify(SECRET)}.encode() in open(f"/proc/{p}/{f}", "rb").read():\n                hits.append(p)\n        except OSError:\n            pass\nhits`,
      );
      expect(r.result).toEqual([]);
      await expectAlive();
    });

    it("cannot read or trace the zygote's memory to poison later runs", async () => {
      const r = await py(
        "import os\ntry:\n    open(f'/proc/{os.getppid()}/mem', 'rb').read(1)\n    'read'\nexcept OSError as e:\n    e.errno",
      );
      expect(r.result).not.toBe("read");
      await expectAlive();
    });

    it("leaves nothing for the next run: module patches, /dev/shm files, System V shared memory", async () => {
      await py(
        'import ctypes\npd.read_excel = None\nopen("/dev/shm/planted", "w").write("x")\nlibc = ctypes.CDLL(None)\nlibc.shmget(0x7e57, 4096, 0o1666)',
      );
      const r = await py(
        'import ctypes, os\nlibc = ctypes.CDLL(None)\n[pd.read_excel is None, os.path.exists("/dev/shm/planted"), libc.shmget(0x7e57, 4096, 0o666)]',
      );
      expect(r.result).toEqual([false, false, -1]);
      await expectAlive();
    });

    it("cannot gain privileges: no setuid, no nested user namespace, no mount", async () => {
      const r = await py(
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\ntry:\n    os.setuid(0)\n    su = 'root'\nexcept OSError:\n    su = 'denied'\n[su, libc.unshare(0x10000000), libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), os.getuid()]",
      );
      expect(r.result).toEqual(["denied", -1, -1, 65534]);
      await expectAlive();
    });
  });

  describe("resources", () => {
    it("a huge allocation is a memory error", async () => {
      const r = await py("x = bytearray(4 * 1024 ** 3)", { memoryMb: 128 });
      expect(r.error?.kind).toBe("memory");
      await expectAlive();
    });

    it("a numpy array beyond memoryMb is a memory error", async () => {
      const r = await py("a = np.ones((20000, 20000))", { memoryMb: 256 });
      expect(r.error?.kind).toBe("memory");
      await expectAlive();
    });

    it("memory grown step by step is stopped", async () => {
      const r = await py("chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))", {
        memoryMb: 128,
        timeoutMs: 10_000,
      });
      expect(r.error?.kind).toBe("memory");
      await expectAlive();
    });

    it("an endless loop is stopped at the deadline", async () => {
      const r = await py("while True:\n    pass", { timeoutMs: 800 });
      expect(r.error?.kind).toBe("timeout");
      await expectNoLeftovers();
      await expectAlive();
    });

    it("busy threads that ignore signals are stopped at the deadline", async () => {
      const r = await py(
        "import signal, threading\nfor s in (signal.SIGTERM, signal.SIGXCPU, signal.SIGINT):\n    signal.signal(s, signal.SIG_IGN)\ndef spin():\n    while True:\n        pass\nfor _ in range(4):\n    threading.Thread(target=spin, daemon=True).start()\nspin()",
        { timeoutMs: 800 },
      );
      expect(r.error?.kind).toBe("timeout");
      await expectNoLeftovers();
      await expectAlive();
    });

    it("a fork storm is capped and leaves no process behind", async () => {
      const r = await py(
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    pass\nn",
        { timeoutMs: 5000 },
      );
      expect(r.error?.kind).toBe("limit");
      await expectNoLeftovers();
      await expectAlive();
    });

    it("detached children (setsid, double fork) do not outlive their run", async () => {
      const marker = `3${Math.floor(Math.random() * 1e6)}`;
      const r = await py(
        `import os, subprocess\nsubprocess.Popen(["sleep", "${marker}"], start_new_session=True)\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv("/usr/bin/sleep", ["sleep", "${marker}.5"])\n    os._exit(0)\n"detached"`,
      );
      expect(r.result).toBe("detached");
      expect(hostHasProcess(`sleep\0${marker}`)).toBe(false);
      await expectNoLeftovers();
      await expectAlive();
    });

    it("huge output is capped", async () => {
      const r = await py('import sys\nfor _ in range(200):\n    sys.stdout.write("x" * 100_000)\n"done"');
      expect(r.result).toBe("done");
      expect(r.logsTruncated).toBe(true);
      expect(r.logs.length).toBeLessThanOrEqual(64 * 1024);
      await expectAlive();
    });

    it("output flooding until the deadline is capped and stopped", async () => {
      const r = await py('while True:\n    print("y" * 10_000)', { timeoutMs: 800 });
      expect(r.error?.kind).toBe("timeout");
      expect(r.logsTruncated).toBe(true);
      await expectAlive();
    });

    it("a file over 100 MB is a limit error and is cut at 100 MB", async () => {
      const r = await py(
        'with open("generated_assets/huge.bin", "wb") as f:\n    for _ in range(150):\n        f.write(b"0" * 1024 * 1024)',
      );
      expect(r.error?.kind).toBe("limit");
      expect((await stat(path.join(ws.assets, "huge.bin"))).size).toBeLessThanOrEqual(100 * 1024 * 1024);
      await expectAlive();
    });

    it("files over 200 MB in all are a limit error: the run is stopped while it writes", async () => {
      // Up to twenty files of 90 MB, each under the per-file cap; the loop would go on without the stop.
      const r = await py(
        'for i in range(20):\n    with open(f"generated_assets/part{i}.bin", "wb") as f:\n        for _ in range(90):\n            f.write(b"0" * 1024 * 1024)\n"finished"',
        { timeoutMs: 30_000 },
      );
      expect(r.error?.kind).toBe("limit");
      expect(r.error?.message).toMatch(/more than 200 MB under generated_assets/);
      expect(r.result).toBeUndefined();
      // Stopped while it writes, past the cap. How far past depends on how often the supervisor got the
      // CPU meanwhile (every 20 ms on a quiet machine; a busy one has let a run reach 270 MB), never the end.
      const sizes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stat(path.join(ws.assets, `part${i}.bin`)).then(
            (st) => st.size,
            () => 0,
          ),
        ),
      );
      const total = sizes.reduce((a, b) => a + b, 0);
      // What it wrote is kept (the cap counts allocated blocks, so sizes alone may read a little under it).
      expect(total).toBeGreaterThan(150 * 1024 * 1024);
      expect(total).toBeLessThan(20 * 90 * 1024 * 1024);
      await expectAlive();
    });

    it("/tmp is small and private", async () => {
      const r = await py(
        'for i in range(4):\n    with open(f"/tmp/fill{i}", "wb") as f:\n        for _ in range(90):\n            f.write(b"0" * 1024 * 1024)',
      );
      expect(r.ok).toBe(false);
      expect(r.error?.message).toMatch(/No space left/);
      await expectAlive();
    });

    it("many files are written but the outputs list stays short", async () => {
      const r = await py(
        'import os\nos.makedirs("generated_assets/many", exist_ok=True)\nfor i in range(300):\n    open(f"generated_assets/many/{i}.txt", "w").write(str(i))',
      );
      expect(r.ok).toBe(true);
      expect(r.outputs.length).toBe(50);
      await expectAlive();
    });

    it("too many open files are refused", async () => {
      const r = await py('fs = [open("/dev/null") for _ in range(10_000)]');
      expect(r.error?.kind).toBe("runtime");
      expect(r.error?.message).toMatch(/Too many open files/);
      await expectAlive();
    });
  });

  describe("crashes and signals", () => {
    it("killing the parent zygote fails only this run; a fresh sandbox takes over", async () => {
      const r = await py("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(5)");
      expect(r.ok).toBe(false);
      expect(r.error?.message).toMatch(/sandbox stopped/);
      await expectAlive();
      await expectNoLeftovers();
    });

    it("kill(-1) from the run ends at most its own sandbox", async () => {
      const r = await py("import os, signal\nos.kill(-1, signal.SIGKILL)\nimport time\ntime.sleep(5)");
      expect(r.ok).toBe(false);
      await expectAlive();
    });

    it("signalling the sandbox's init does nothing", async () => {
      const r = await py("import os, signal\nos.kill(1, signal.SIGKILL)\n'still here'");
      expect(r.result).toBe("still here");
      await expectAlive();
    });

    it("a ctypes segfault is a contained crash", async () => {
      const r = await py("import ctypes\nctypes.string_at(0)");
      expect(r.ok).toBe(false);
      expect(r.error?.message).toMatch(/SIGSEGV/);
      await expectAlive();
    });

    it("unbounded recursion is a RecursionError at the user's line", async () => {
      const r = await py("def f(n):\n    return f(n + 1)\n\nf(0)");
      expect(r.error).toMatchObject({ kind: "runtime", line: 2 });
      expect(r.error?.message).toMatch(/RecursionError/);
      await expectAlive();
    });

    it("recursion past the C stack is a contained crash", async () => {
      const r = await py("import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\n\nf(0)");
      expect(r.ok).toBe(false);
      await expectAlive();
    });
  });

  describe("cancellation", () => {
    it("a cancelled run is stopped at once and its processes are gone", async () => {
      const marker = `4${Math.floor(Math.random() * 1e6)}`;
      const ac = new AbortController();
      const call = client
        .callTool(
          {
            name: TOOL.runPython,
            arguments: { code: `import subprocess\nsubprocess.run(["sleep", "${marker}"])`, timeoutMs: 30_000 },
          },
          { signal: ac.signal },
        )
        .catch((err: unknown) => err);
      await expect.poll(() => hostHasProcess(`sleep\0${marker}`), { timeout: 20_000 }).toBe(true);
      ac.abort();
      await call;
      await expect.poll(() => hostHasProcess(`sleep\0${marker}`), { timeout: 5_000 }).toBe(false);
      await expectAlive();
    });
  });
});
