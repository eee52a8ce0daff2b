import { describe, expect, it } from "vitest";
import { recoverRequestId } from "./request-id.js";

/** The ends a framer keeps of `line` (here 40 bytes each side, the middle being the huge part). */
function ends(line: string) {
  const bytes = Buffer.from(line);
  return { head: bytes.subarray(0, 40), tail: bytes.subarray(-40) };
}

const BIG = "x".repeat(200);

describe("recoverRequestId", () => {
  it.each([
    ["id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"${BIG}"}}`, 7],
    ["string id first", `{"id":"req-1","jsonrpc":"2.0","params":{"a":"${BIG}"}}`, "req-1"],
    ["id last (the SDK's order)", `{"method":"tools/call","params":{"a":"${BIG}"},"jsonrpc":"2.0","id":12}`, 12],
    ["id last with spaces and CR", `{ "params": {"a":"${BIG}"}, "id" : "k" }\r`, "k"],
  ])("reads the id when it comes %s", (_name, line, id) => {
    expect(recoverRequestId(ends(line))).toBe(id);
  });

  it.each([
    ["a batch", `[{"jsonrpc":"2.0","id":1,"params":"${BIG}"}]`],
    ["an id nested in params", `{"method":"m","params":{"a":"${BIG}","id":3}}`],
    ["an id inside a string", `{"method":"m","params":"${BIG}\\",\\"id\\":4}"}`],
    ["a notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"${BIG}"}}`],
    ["not JSON", BIG],
    ["a cut-off number at the head's end", `{"jsonrpc":"2.0","id":123456789012345678901234567890123456789`],
  ])("gives up on %s", (_name, line) => {
    expect(recoverRequestId(ends(line))).toBeUndefined();
  });
});
