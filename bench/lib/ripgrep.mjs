// Locates ripgrep, the floor for name search; installs it via apt when running as root.
import { spawnSync } from "node:child_process";

function rgVersion() {
  const r = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.split("\n")[0] : undefined;
}

/** Returns the `rg --version` line, or throws with install instructions. */
export function ensureRipgrep(log) {
  let version = rgVersion();
  if (version) return version;
  if (process.getuid?.() === 0 && spawnSync("which", ["apt-get"]).status === 0) {
    log("ripgrep not found; installing it with apt-get (running as root)…");
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    const install =
      update.status === 0 && spawnSync("apt-get", ["install", "-y", "-qq", "ripgrep"], { stdio: "inherit" });
    if (install && install.status === 0) version = rgVersion();
  }
  if (version) return version;
  throw new Error(
    "ripgrep (rg) is needed as the name-search floor but is not on PATH.\n" +
      "Install it: `sudo apt-get install -y ripgrep` (Debian/Ubuntu), `brew install ripgrep` (macOS), or see https://github.com/BurntSushi/ripgrep#installation",
  );
}
