// A scripted model makes a chart through exec_run_python, end to end: the web server's agent, the
// bundled MCP server it spawns, the Python sandbox, and the tool_end event that opens the chart.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@textide/shared";
import { call, routedModel, startAgentSession, waitUntil, type AgentSession, type Turn } from "./agent-helpers.js";

const CHART = `df = pd.read_excel("data/planets.xlsx").nlargest(5, "Diameter (km)")
fig, ax = plt.subplots(figsize=(5, 5))
ax.pie(df["Diameter (km)"], labels=df["Planet"])
fig.savefig("generated_assets/python-planets-pie.png")
df["Planet"].tolist()`;

const scripts: Record<string, Turn[]> = {
  "pie of the largest planets": [
    { toolCalls: [{ name: "exec_run_python", args: { code: CHART } }] },
    (messages) => {
      // The model's next turn sees the tool result; the answer quotes what the run returned.
      const last = messages.at(-1);
      const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
      return text.includes("Jupiter") ? "Saved generated_assets/python-planets-pie.png." : "the result was missing";
    },
  ],
};

let session: AgentSession;

beforeAll(async () => {
  session = await startAgentSession({
    model: { chat: await routedModel(scripts), info: { id: "scripted", label: "Scripted", offline: true } },
  });
}, 60_000);
afterAll(() => session?.close());

describe("agent runtime with exec_run_python", () => {
  it("makes a chart through exec_run_python, and its tool_end carries the PNG for the IDE to open", async () => {
    const ack = await call<{ runId: string }>(session.client, "agent/run", { text: "pie of the largest planets" });
    if (!ack.ok) throw new Error(ack.error.message);
    const { runId } = ack.data;
    const final = await waitUntil(
      () => session.events.find((e) => e.type === "final" && e.runId === runId),
      60_000,
      "final",
    );
    expect(final).toMatchObject({ stopReason: "done", text: "Saved generated_assets/python-planets-pie.png." });
    const end = session.events.find(
      (e): e is Extract<AgentEvent, { type: "tool_end" }> => e.type === "tool_end" && e.runId === runId,
    );
    expect(end).toMatchObject({ name: "exec_run_python", isError: false });
    expect(end?.outputs).toEqual(["generated_assets/python-planets-pie.png"]);
    const png = await readFile(path.join(session.ws.assets, "python-planets-pie.png"));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
  });
});
