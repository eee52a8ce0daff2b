#!/usr/bin/env node
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import type { AgentEvent } from "@textide/shared";
import { createAgent, type RunResult } from "./agent.js";
import { openThreadStore } from "./checkpoint/open-thread-store.js";
import { threadTitleOf } from "./checkpoint/thread-store.js";
import { CliUsageError, loadCliConfig, type CliConfig } from "./cli/config.js";
import { McpHub } from "./mcp/hub.js";
import { McpToolSet } from "./mcp/tools.js";
import { describeModel, resolveModelConfig } from "./models/config.js";
import { createChatModel } from "./models/create-chat-model.js";
import { OfflinePlanner } from "./planner/offline-planner.js";

const err = (line: string) => process.stderr.write(`${line}\n`);

/** Human-readable progress on stderr; the answer's tokens on stdout. */
function printer(json: boolean): (e: AgentEvent) => void {
  return (e) => {
    if (e.type === "run_started") err(`textide agent · ${e.model.label} · thread ${e.threadId}`);
    else if (e.type === "tool_start") err(`→ ${e.name} ${JSON.stringify(e.args).slice(0, 160)}`);
    else if (e.type === "tool_end")
      err(`${e.isError ? "✗" : "✓"} ${e.name} (${e.durationMs} ms) ${e.summary.replace(/\s+/g, " ").slice(0, 160)}`);
    else if (e.type === "token" && !json) process.stdout.write(e.text);
    else if (e.type === "approval_required") err(`? ${e.name} needs approval: ${JSON.stringify(e.args).slice(0, 300)}`);
    else if (e.type === "final" && !json)
      process.stdout.write(`\n${e.outputs.length ? `\nOutputs:\n${e.outputs.map((o) => `  ${o}`).join("\n")}\n` : ""}`);
    else if (e.type === "error") err(`error: ${e.message}`);
  };
}

async function ask(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

async function run(cfg: CliConfig): Promise<number> {
  const log = { info: () => undefined, warn: (o: object, m: string) => err(`warn: ${m} ${JSON.stringify(o)}`) };
  const modelConfig = resolveModelConfig(cfg.env, cfg.model ? { model: cfg.model } : undefined);
  const model = createChatModel(modelConfig, { offline: () => new OfflinePlanner() });
  const hub = new McpHub(cfg.servers, log);
  const store = openThreadStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  const { checkpointer } = store;
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  try {
    for (const s of await hub.connectAll())
      if (!s.connected) err(`warn: MCP server "${s.name}" is unavailable: ${s.error ?? ""}`);
    const tools = await new McpToolSet(hub, { log, timeoutMs: cfg.toolTimeoutMs }).tools();
    if (tools.length === 0) throw new Error("No MCP tools are available (the bundled server did not start).");
    const agent = createAgent({
      model,
      modelInfo: describeModel(modelConfig),
      provider: modelConfig.provider,
      tools,
      checkpointer,
      toolTimeoutMs: cfg.toolTimeoutMs,
      ...(cfg.approve.length ? { approve: (name: string) => cfg.approve.includes(name) } : {}),
    });
    const threadId = cfg.threadId ?? randomUUID();
    // The CLI is the single local user: its threads show in the web UI's loopback mode.
    if (!(await store.claim(threadId, "local", threadTitleOf(cfg.request))))
      throw new Error(`Thread ${threadId} belongs to another user.`);
    const onEvent = printer(cfg.json);
    let result: RunResult = await agent.run({ threadId, text: cfg.request, signal: controller.signal, onEvent });
    while (result.stopReason === "awaiting_approval" && result.approval) {
      const ok = await ask(`Run ${result.approval.name}?`);
      result = await agent.run({ threadId, resume: ok ? "approve" : "reject", signal: controller.signal, onEvent });
    }
    if (cfg.json) {
      const out = {
        model: result.model.id,
        final: result.final,
        toolCalls: result.toolCalls,
        outputs: result.outputs,
        threadId,
        stopReason: result.stopReason,
        trace: result.trace,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
    }
    return result.stopReason === "done" ? 0 : result.stopReason === "cancelled" ? 130 : 1;
  } finally {
    await hub.close();
    await store.close();
  }
}

try {
  process.exitCode = await run(loadCliConfig(process.argv.slice(2), process.env));
} catch (e) {
  err(e instanceof CliUsageError ? e.message : `textide agent failed: ${(e as Error).message}`);
  process.exitCode = e instanceof CliUsageError ? 2 : 1;
}
