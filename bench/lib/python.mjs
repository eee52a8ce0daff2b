// Locates Debian's python3 with matplotlib and openpyxl, the anchor for charting; installs the
// modules via apt when running as root. The python3 first on PATH may be a pyenv build without
// them, so the anchor always runs /usr/bin/python3, whose modules apt manages.
import { spawnSync } from "node:child_process";

export const PYTHON = "/usr/bin/python3";
const APT_PACKAGES = ["python3-matplotlib", "python3-openpyxl"];
const PROBE =
  "import sys, matplotlib, openpyxl; " +
  "print(f'Python {sys.version.split()[0]}, matplotlib {matplotlib.__version__}, openpyxl {openpyxl.__version__}')";

function versions() {
  const r = spawnSync(PYTHON, ["-c", PROBE], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Returns a "Python x, matplotlib y, openpyxl z" line, or throws with install instructions. */
export function ensurePythonCharting(log) {
  let version = versions();
  if (version) return version;
  if (process.getuid?.() === 0 && spawnSync("which", ["apt-get"]).status === 0) {
    log(`${PYTHON} lacks matplotlib or openpyxl; installing ${APT_PACKAGES.join(" ")} with apt-get (running as root)…`);
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    const install =
      update.status === 0 && spawnSync("apt-get", ["install", "-y", "-qq", ...APT_PACKAGES], { stdio: "inherit" });
    if (install && install.status === 0) version = versions();
  }
  if (version) return version;
  throw new Error(
    `${PYTHON} with matplotlib and openpyxl is needed as the charting anchor.\n` +
      `Install them: \`sudo apt-get install -y python3 ${APT_PACKAGES.join(" ")}\` (Debian/Ubuntu).`,
  );
}
