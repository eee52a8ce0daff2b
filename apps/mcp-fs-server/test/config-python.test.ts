import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const base = ["--root", "/tmp/p", "--assets", "/tmp/a"];
const timeout = (env: NodeJS.ProcessEnv) => {
  const exec = loadConfig(base, env).exec;
  return exec === false ? "off" : exec.pythonTimeoutMs;
};

describe("PY_EXEC_TIMEOUT_SEC", () => {
  it("sets exec_run_python's default time limit in seconds, apart from exec_run_js's", () => {
    expect(timeout({})).toBeUndefined();
    expect(timeout({ PY_EXEC_TIMEOUT_SEC: "12" })).toBe(12_000);
    expect(timeout({ PY_EXEC_TIMEOUT_SEC: "2.5", EXEC_TIMEOUT_SEC: "9" })).toBe(2_500);
  });

  it("refuses a limit above 30 s or not a positive number, saying which variable", () => {
    for (const bad of ["31", "0", "-1", "soon"]) {
      expect(() => timeout({ PY_EXEC_TIMEOUT_SEC: bad })).toThrow(ConfigError);
    }
    expect(() => timeout({ PY_EXEC_TIMEOUT_SEC: "31" })).toThrow(/PY_EXEC_TIMEOUT_SEC must be at most 30/);
  });

  it("is off with --no-exec", () => {
    expect(loadConfig([...base, "--no-exec"], { PY_EXEC_TIMEOUT_SEC: "5" }).exec).toBe(false);
  });
});
