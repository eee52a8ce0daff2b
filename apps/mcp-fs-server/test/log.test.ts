import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { SERVER_BIN } from "./helpers/tmp-root.js";

/** A destination that records each write it receives. */
function recorder(): { writes: string[]; stream: NodeJS.WritableStream } {
  const writes: string[] = [];
  const stream = { write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WritableStream;
  return { writes, stream };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("call log destination", () => {
  it("hands the lines of one event-loop turn over in a single write, after the turn", async () => {
    const { writes, stream } = recorder();
    const log = createLogger("info", stream);
    log.info({ tool: "a" }, "tool call");
    log.info({ tool: "b" }, "tool call");
    log.info({ tool: "c" }, "tool call");
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split("\n").filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { tool: string }).tool)).toEqual(["a", "b", "c"]);
    expect(writes[0]!.endsWith("\n")).toBe(true);

    log.info({ tool: "d" }, "tool call");
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it("writes an error at once, with the lines logged before it", () => {
    const { writes, stream } = recorder();
    const log = createLogger("info", stream);
    log.info({ tool: "a" }, "tool call");
    log.error({ tool: "b" }, "tool call failed unexpectedly");
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split("\n").filter(Boolean)).toHaveLength(2);
  });

  it("writes pending lines on logger.flush and then calls its callback", () => {
    const { writes, stream } = recorder();
    const log = createLogger("info", stream);
    log.info({ tool: "a" }, "tool call");
    let called = false;
    log.flush(() => {
      called = writes.length === 1;
    });
    expect(called).toBe(true);
  });

  it("writes pending lines when the process exits before the turn ends", () => {
    const logModule = pathToFileURL(path.join(path.dirname(SERVER_BIN), "log.js")).href;
    const script = [
      `import { createLogger } from ${JSON.stringify(logModule)};`,
      `const log = createLogger("info");`,
      `log.info({ tool: "first" }, "tool call");`,
      `log.info({ tool: "last" }, "tool call");`,
      `process.exit(0);`,
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.status).toBe(0);
    const tools = run.stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { tool: string }).tool);
    expect(tools).toEqual(["first", "last"]);
  });
});
