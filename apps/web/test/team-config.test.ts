import { describe, expect, it } from "vitest";
import { loadConfig } from "../server/config.js";

describe("REDIS_URL", () => {
  it("takes a redis:// or rediss:// URL, counts an empty value as unset and refuses anything else by name", () => {
    expect(loadConfig({ REDIS_URL: "redis://cache:6379/0" }, "/tmp").redisUrl).toBe("redis://cache:6379/0");
    expect(loadConfig({ REDIS_URL: "rediss://cache:6380" }, "/tmp").redisUrl).toBe("rediss://cache:6380");
    // A copied .env.example leaves the variable empty: one process, no cluster.
    expect(loadConfig({ REDIS_URL: "" }, "/tmp").redisUrl).toBeUndefined();
    expect(() => loadConfig({ REDIS_URL: "http://cache:6379" }, "/tmp")).toThrow(/REDIS_URL: must be a redis:\/\//);
  });
});
