// Describes the machine a run happened on, for the report header.
import { readFileSync } from "node:fs";
import os from "node:os";

function read(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

export function machineInfo() {
  // /proc/cpuinfo names the model even in containers where os.cpus() may not.
  const cpu = /^model name\s*:\s*(.+)$/m.exec(read("/proc/cpuinfo"))?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown";
  const distro = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(read("/etc/os-release"))?.[1] ?? os.type();
  return {
    cpu,
    cores: os.availableParallelism(),
    ramGiB: os.totalmem() / 1024 ** 3,
    os: `${distro}, ${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}
