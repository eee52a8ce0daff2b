import { describe, expect, it } from "vitest";
import { agentEvent } from "./agent-events.js";
import { apiErrorBody, errorCode, parseErrorCode } from "./errors.js";

describe("error codes", () => {
  it("are `${type}:${surface}` from the shared lists, and parse back", () => {
    expect(errorCode("not_found", "file")).toBe("not_found:file");
    expect(parseErrorCode("conflict:agent")).toEqual({ type: "conflict", surface: "agent" });
    expect(parseErrorCode("exists:file")).toEqual({ type: "exists", surface: "file" });
  });

  it("reject bare types, unknown parts and extra segments", () => {
    for (const code of ["not_found", "nope:file", "not_found:nowhere", "not_found:file:x", ":file", ""])
      expect(parseErrorCode(code), code).toBeUndefined();
  });

  it("are what REST error bodies and agent error events must carry", () => {
    const body = { error: { code: "conflict:file", message: "changed on disk", currentEtag: '"1"' } };
    expect(apiErrorBody.parse(body).error).toMatchObject({ code: "conflict:file", currentEtag: '"1"' });
    expect(apiErrorBody.safeParse({ error: { code: "conflict", message: "x" } }).success).toBe(false);
    const ids = { runId: "r", threadId: "t" };
    expect(agentEvent.safeParse({ type: "error", ...ids, code: "internal:agent", message: "x" }).success).toBe(true);
    expect(agentEvent.safeParse({ type: "error", ...ids, code: "agent_failed", message: "x" }).success).toBe(false);
  });
});
