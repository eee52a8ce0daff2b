import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "@textide/shared";
import { isInside } from "@textide/shared/node";
import { BWRAP_ISOLATION } from "../exec/sandbox-command.js";

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

/**
 * Why exec_run_python cannot run here, in one line for people, or undefined when it can: bwrap,
 * python3 and the four modules are checked inside the very sandbox the zygote will use (about 50 ms).
 */
export function pythonUnavailable(opts: { projectRoot: string; assetsRoot: string }): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is not installed (${APT_LINE})`;
  const check = `import importlib.util as u, sys; m = [n for n in ${JSON.stringify(REQUIRED_MODULES)} if u.find_spec(n) is None]; print(" ".join(m)); sys.exit(3 if m else 0)`;
  const sandbox = pythonSandbox(opts, [PYTHON, "-I", "-c", check]);
  const r = spawnSync(sandbox.command, sandbox.args, { encoding: "utf8", timeout: 10_000, env: {} });
  if (r.error) {
    return (r.error as NodeJS.ErrnoException).code === "ENOENT"
      ? `bubblewrap (bwrap) is not installed (${APT_LINE})`
      : `the sandbox could not start: ${r.error.message}`;
  }
  if (r.status === 3) return `Python modules missing: ${r.stdout.trim()} (${APT_LINE})`;
  if (r.status !== 0) {
    const why = r.stderr.trim().split("\n")[0] ?? `exit ${r.status}`;
    return `bubblewrap cannot create its namespaces here (${why}); no unsandboxed fallback is offered`;
  }
  return undefined;
}
