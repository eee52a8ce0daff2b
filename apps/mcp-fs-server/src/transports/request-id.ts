import type { OversizedLine } from "./line-framer.js";

type RequestId = string | number;

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const ID = String.raw`(${STRING}|-?\d+)`;
const PRIMITIVE = String.raw`(?:${STRING}|-?\d[\d.eE+-]*|true|false|null)`;
/** `{` then only members with primitive values, then `"id": …`: the id is a top-level member. */
const ID_NEAR_START = new RegExp(String.raw`^\s*\{(?:\s*${STRING}\s*:\s*${PRIMITIVE}\s*,)*?\s*"id"\s*:\s*${ID}\s*[,}]`);
/**
 * `"id": …` as the last member before the final `}`. A quote inside a JSON string is escaped, so
 * an unescaped `,"id":` cannot be string content, and a nested object would end in two braces.
 */
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * The JSON-RPC id of a line too large to parse, when it can be read from the line's first or last
 * bytes: clients put it first (`{"jsonrpc", "id", …}`) or last (the SDK's `{…request, jsonrpc, id}`).
 * Undefined when it cannot be told, for instance for a batch or a notification.
 */
export function recoverRequestId(line: Pick<OversizedLine, "head" | "tail">): RequestId | undefined {
  const head = line.head.toString("utf8");
  if (!/^\s*\{/.test(head)) return undefined;
  const match = ID_NEAR_START.exec(head) ?? ID_AT_END.exec(line.tail.toString("utf8").replace(/\r$/, ""));
  const token = match?.[1];
  if (token === undefined) return undefined;
  try {
    const id = JSON.parse(token) as unknown;
    return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}
