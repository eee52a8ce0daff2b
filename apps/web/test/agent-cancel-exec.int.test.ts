import type { AgentEvent } from "@textide/shared";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, routedModel, startAgentSession, waitUntil, type AgentSession, type Turn } from "./agent-helpers.js";

const EXEC_TIMEOUT_MS = 30_000;
const scripts: Record<string, Turn[]> = {
  spin: [{ toolCalls: [{ name: "exec_run_js", args: { code: "while (true) {}", timeoutMs: EXEC_TIMEOUT_MS } }] }],
  quick: [{ toolCalls: [{ name: "exec_run_js", args: { code: "return 6 * 7;" } }] }, "42"],
};

let session: AgentSession;
let client: Socket;
let events: AgentEvent[];

beforeAll(async () => {
  session = await startAgentSession({
    model: {
      chat: await routedModel(scripts),
      info: { id: "scripted", label: "Scripted test model", offline: true },
    },
  });
  ({ client, events } = session);
});

afterAll(() => session?.close());

type Started = { runId: string; threadId: string };

describe("cancelling a run while exec_run_js spins", () => {
  it("frees the exec sandbox at once: the next exec_run_js answers well before the spinning call's deadline", async () => {
    const spin = await call<Started>(client, "agent/run", { text: "spin" });
    if (!spin.ok) throw new Error(spin.error.message);
    await waitUntil(
      () => events.find((e) => e.type === "tool_start" && e.runId === spin.data.runId),
      10_000,
      "tool_start of the spinning exec_run_js",
    );
    // Soon after the call starts: an abort that arrived while the sandbox runner was still starting used
    // to be lost, leaving the loop running until its deadline.
    await new Promise((r) => setTimeout(r, 300));
    expect(await call(client, "agent/cancel", { runId: spin.data.runId })).toMatchObject({ ok: true });
    await waitUntil(
      () => events.find((e) => e.type === "final" && e.runId === spin.data.runId),
      5000,
      "the cancelled run's final",
    );

    const started = Date.now();
    const quick = await call<Started>(client, "agent/run", { text: "quick" });
    if (!quick.ok) throw new Error(quick.error.message);
    const final = await waitUntil(
      () => events.find((e) => e.type === "final" && e.runId === quick.data.runId),
      EXEC_TIMEOUT_MS + 5000,
      "the second run's final",
    );
    const elapsed = Date.now() - started;
    expect(final).toMatchObject({ stopReason: "done", text: "42" });
    const end = events.find((e) => e.type === "tool_end" && e.runId === quick.data.runId);
    expect(end, JSON.stringify(end)).toMatchObject({ name: "exec_run_js", isError: false });
    expect(elapsed).toBeLessThan(5000);
  }, 60_000);
});
