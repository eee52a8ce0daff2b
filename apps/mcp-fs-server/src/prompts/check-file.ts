import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { isFsError, type PathPolicy } from "@textide/shared/node";

/** The path as tools show it, or an invalid-params error saying what is wrong with it. */
export async function checkedFilePath(policy: PathPolicy, input: string): Promise<string> {
  try {
    const resolved = await policy.resolve(input);
    if (!resolved.stats) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No file at ${input}.`);
    if (resolved.stats?.isDirectory())
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${input} is a directory; pick a file in it.`);
    return resolved.display;
  } catch (err) {
    if (isFsError(err)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
    throw err;
  }
}
