import { execFile } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "@textide/shared";
import { isInside } from "@textide/shared/node";
import { BWRAP_ISOLATION, bwrapWorks } from "../exec/sandbox-command.js";

/** The zygote's folder, beside src/ and dist/ in the package (tsc does not copy .py files; it needs not). */
export const ZYGOTE_DIR = fileURLToPath(new URL("../../python/", import.meta.url));
export const PYTHON = "/usr/bin/python3";
export const REQUIRED_MODULES = ["numpy", "pandas", "matplotlib", "openpyxl"] as const;
export const APT_LINE =
  "sudo apt-get install bubblewrap python3 python3-numpy python3-pandas python3-matplotlib python3-openpyxl";

/** Where the sandbox sees the workspace: project entries read-only, generated_assets writable. */
export const SANDBOX_WORKSPACE = "/workspace";
const SANDBOX_ZYGOTE_DIR = "/opt/textide";
const TMP_BYTES = 256 * 1024 * 1024;
const SHM_BYTES = 64 * 1024 * 1024;

export interface PythonSandbox {
  command: "bwrap";
  args: string[];
  /** The project's top-level names the view was built from; a change means a fresh sandbox. */
  topLevel: string;
}

/**
 * The top-level entries of the project as they are bound into the view. A symlink is bound as its
 * target only when that target lies inside the project; `generated_assets` is the assets root's place.
 */
export function projectEntries(projectRoot: string): { name: string; source: string }[] {
  const entries: { name: string; source: string }[] = [];
  for (const name of readdirSync(projectRoot).sort()) {
    if (name === ROOT.assets) continue;
    const abs = path.join(projectRoot, name);
    try {
      const source = lstatSync(abs).isSymbolicLink() ? realpathSync(abs) : abs;
      if (isInside(projectRoot, source) && source !== projectRoot) entries.push({ name, source });
    } catch {
      // A dangling link or an entry that vanished: nothing to show.
    }
  }
  return entries;
}

/**
 * The bubblewrap command line of one Python sandbox. The working directory `/workspace` is a
 * read-only tmpfs holding a read-only bind of each top-level project entry (so `data/planets.xlsx`
 * resolves as in the fs tools) and a writable bind of generated_assets at `generated_assets/`.
 * A bind of the project root itself cannot carry the assets mount point without creating a folder
 * in the user's project, hence one bind per entry.
 */
export function pythonSandbox(
  opts: { projectRoot: string; assetsRoot: string },
  python: string[] = [PYTHON, "-I", "-B", `${SANDBOX_ZYGOTE_DIR}/zygote.py`],
): PythonSandbox {
  const entries = projectEntries(opts.projectRoot);
  const ro = (p: string) => ["--ro-bind-try", p, p];
  // /bin, /lib… are symlinks into /usr on merged-/usr systems: recreate those, bind the others.
  const base = ["/bin", "/lib", "/lib64", "/sbin"].flatMap((p) => {
    try {
      const s = lstatSync(p);
      return s.isSymbolicLink() ? ["--symlink", readlinkSync(p), p] : ro(p);
    } catch {
      return [];
    }
  });
  const ws = SANDBOX_WORKSPACE;
  const args = [
    ...BWRAP_ISOLATION,
    "--unshare-user", // required (not just tried) so that nested user namespaces can be disabled
    "--disable-userns",
    "--clearenv",
    ...["HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8", "PATH=/usr/bin:/bin"].flatMap(setenv),
    ...["MPLBACKEND=Agg", "MPLCONFIGDIR=/tmp/matplotlib", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1"].flatMap(
      setenv,
    ),
    "--ro-bind",
    "/usr",
    "/usr",
    ...base,
    // numpy's BLAS is chosen through /etc/alternatives; matplotlib's Debian rc file lives in /etc.
    ...["/etc/alternatives", "/etc/ld.so.cache", "/etc/matplotlibrc", "/etc/fonts"].flatMap(ro),
    "--proc",
    "/proc",
    // tmpfs lives in RAM: sized, so a run cannot fill memory through /tmp, /dev/shm or /dev itself.
    "--dev",
    "/dev",
    "--size",
    String(SHM_BYTES),
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    ZYGOTE_DIR,
    SANDBOX_ZYGOTE_DIR,
    "--tmpfs",
    ws,
    ...entries.flatMap((e) => ["--ro-bind", e.source, `${ws}/${e.name}`]),
    "--bind",
    opts.assetsRoot,
    `${ws}/${ROOT.assets}`,
    "--remount-ro",
    ws,
    "--chdir",
    ws,
    "--",
    ...python,
  ];
  return { command: "bwrap", args, topLevel: entries.map((e) => e.name).join("/") };
}

function setenv(kv: string): string[] {
  const i = kv.indexOf("=");
  return ["--setenv", kv.slice(0, i), kv.slice(i + 1)];
}

/** Where Debian's python3 finds apt's and pip's modules (its sys.path below /usr). */
function moduleDirs(): string[] {
  const versioned = (parent: string, sub: string) => {
    try {
      return readdirSync(parent)
        .filter((n) => /^python3\.\d+$/.test(n))
        .map((n) => path.join(parent, n, sub));
    } catch {
      return [];
    }
  };
  return [
    "/usr/lib/python3/dist-packages",
    ...versioned("/usr/local/lib", "dist-packages"),
    ...versioned("/usr/lib", "site-packages"),
  ];
}

/**
 * Why exec_run_python cannot run here, from what needs no new process: python3, the four modules on
 * its path, and bwrap able to make namespaces (the probe exec_run_js makes anyway, run once). The
 * sandbox itself is tried by `pythonSandboxFails`, after the handshake.
 */
export function pythonMissing(): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is not installed (${APT_LINE})`;
  const dirs = moduleDirs();
  const absent = REQUIRED_MODULES.filter((m) => !dirs.some((d) => existsSync(path.join(d, m))));
  if (absent.length > 0) return `Python modules missing: ${absent.join(" ")} (${APT_LINE})`;
  if (!bwrapWorks()) {
    return `bubblewrap (bwrap) is not installed or cannot create namespaces here (${APT_LINE}); no unsandboxed fallback is offered`;
  }
  return undefined;
}

/**
 * Why the sandbox the zygote will use cannot run python3 with the four modules, or undefined when it
 * can: bwrap, its namespaces and the imports are tried for real (50–250 ms, so not before the handshake).
 */
export async function pythonSandboxFails(opts: {
  projectRoot: string;
  assetsRoot: string;
}): Promise<string | undefined> {
  const check = `import importlib.util as u, sys; m = [n for n in ${JSON.stringify(REQUIRED_MODULES)} if u.find_spec(n) is None]; print(" ".join(m)); sys.exit(3 if m else 0)`;
  const sandbox = pythonSandbox(opts, [PYTHON, "-I", "-c", check]);
  return new Promise((resolve) => {
    execFile(sandbox.command, sandbox.args, { encoding: "utf8", timeout: 10_000, env: {} }, (err, stdout, stderr) => {
      if (!err) return resolve(undefined);
      const code: unknown = (err as { code?: unknown }).code;
      if (code === "ENOENT") return resolve(`bubblewrap (bwrap) is not installed (${APT_LINE})`);
      if (typeof code !== "number" && !err.killed) return resolve(`the sandbox could not start: ${err.message}`);
      if (code === 3) return resolve(`Python modules missing: ${stdout.trim()} (${APT_LINE})`);
      const why =
        stderr.trim().split("\n")[0] || (err.killed ? "it did not answer within 10 s" : `exit ${String(code)}`);
      resolve(`bubblewrap cannot create its namespaces here (${why}); no unsandboxed fallback is offered`);
    });
  });
}

/** Both checks: why exec_run_python cannot run here, in one line for people, or undefined when it can. */
export async function pythonUnavailable(opts: {
  projectRoot: string;
  assetsRoot: string;
}): Promise<string | undefined> {
  return pythonMissing() ?? (await pythonSandboxFails(opts));
}
