import { z } from "zod";

const stdioServer = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
const remoteServer = z.object({
  // http(s) only: new URL() also parses a pasted "localhost:3000/mcp" (as the scheme "localhost:").
  url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }),
  headers: z.record(z.string(), z.string()).optional(),
  /** Streamable HTTP by default; "sse" for servers that only speak the older SSE transport. */
  transport: z.enum(["http", "sse"]).optional(),
});

export const serverSpec = z.union([stdioServer, remoteServer]);
/** As written by users: `args` may be omitted. */
export type ServerSpec = z.input<typeof serverSpec>;

/** The config file shape Claude Desktop uses, so users can paste their server entries. */
export const mcpServersFile = z.object({ mcpServers: z.record(z.string(), serverSpec) });
export type McpServersFile = z.output<typeof mcpServersFile>;

export function isStdio(spec: ServerSpec): spec is z.input<typeof stdioServer> {
  return "command" in spec;
}

/** Parses a config file's text; errors name the file and the field. */
export function parseServersFile(text: string, source: string): McpServersFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = mcpServersFile.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((i) => describeIssue(i, json, [])).join("; ");
    throw new Error(`${source}: expected {"mcpServers": {name: {command, args, env} | {url, headers}}}: ${issues}`);
  }
  return parsed.data;
}

/**
 * "path: message" lines. A server entry that matches neither variant is reported against the one it
 * was meant to be (remote if it has a `url` and no `command`), so the error names the bad field.
 */
function describeIssue(issue: z.core.$ZodIssue, json: unknown, base: PropertyKey[]): string[] {
  const path = [...base, ...issue.path];
  const where = path.map(String).join(".") || "(root)";
  if (issue.code === "invalid_union" && issue.errors.length === 2) {
    const entry = path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], json);
    const isObject = typeof entry === "object" && entry !== null && !Array.isArray(entry);
    if (isObject && !("command" in entry) && !("url" in entry)) {
      return [`${where}: needs "command" (a local server) or "url" (a remote one)`];
    }
    const variant = isObject && "url" in entry && !("command" in entry) ? 1 : 0;
    return issue.errors[variant]!.flatMap((i) => describeIssue(i, json, path));
  }
  return [`${where}: ${issue.message}`];
}
