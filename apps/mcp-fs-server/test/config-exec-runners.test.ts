import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const base = ["--root", "/tmp/p", "--assets", "/tmp/a"];
const runners = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const exec = loadConfig([...base, ...argv], env).exec;
  return exec === false ? "off" : exec.runners;
};

describe("--exec-runners / EXEC_RUNNERS", () => {
  it("is left to the pool's default (sized to the machine) when not set", () => {
    expect(runners([])).toBeUndefined();
    expect(runners([], { EXEC_RUNNERS: "" })).toBeUndefined();
  });

  it("reads the flag before the environment", () => {
    expect(runners([], { EXEC_RUNNERS: "3" })).toBe(3);
    expect(runners(["--exec-runners", "1"], { EXEC_RUNNERS: "3" })).toBe(1);
  });

  it("refuses a count that is not a whole number from 1 to 32", () => {
    for (const bad of ["0", "-1", "2.5", "33", "many"]) {
      expect(() => runners(["--exec-runners", bad])).toThrow(ConfigError);
    }
  });
});

describe("EXEC_TIMEOUT_SEC", () => {
  const timeout = (env: NodeJS.ProcessEnv) => {
    const exec = loadConfig(base, env).exec;
    return exec === false ? "off" : exec.defaultTimeoutMs;
  };

  it("is read in seconds and handed to the server in milliseconds", () => {
    expect(timeout({ EXEC_TIMEOUT_SEC: "12" })).toBe(12_000);
    expect(timeout({ EXEC_TIMEOUT_SEC: "0.5" })).toBe(500);
  });

  it("leaves the built-in default when unset, and refuses nonsense", () => {
    expect(timeout({})).toBeUndefined();
    for (const bad of ["0", "-3", "soon", "100000"])
      expect(() => timeout({ EXEC_TIMEOUT_SEC: bad })).toThrow(ConfigError);
  });
});
