import { describe, expect, it } from "vitest";
import { isStdio, parseServersFile } from "../../src/mcp/server-config.js";

const SOURCE = "/home/me/.config/claude_desktop_config.json";

describe("parseServersFile", () => {
  it("reads a Claude Desktop config: stdio, Streamable HTTP and SSE entries, ignoring other top-level keys", () => {
    const text = JSON.stringify({
      globalShortcut: "Ctrl+Space",
      mcpServers: {
        filesystem: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
          env: { DEBUG: "1" },
        },
        bare: { command: "my-server" },
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
        legacy: { url: "http://127.0.0.1:8931/sse", transport: "sse" },
      },
    });
    const { mcpServers } = parseServersFile(text, SOURCE);
    expect(Object.keys(mcpServers)).toEqual(["filesystem", "bare", "remote", "legacy"]);
    expect(mcpServers.filesystem).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      env: { DEBUG: "1" },
    });
    // args default to none.
    expect(mcpServers.bare).toEqual({ command: "my-server", args: [] });
    expect(isStdio(mcpServers.bare!)).toBe(true);
    expect(mcpServers.remote).toEqual({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } });
    expect(isStdio(mcpServers.remote!)).toBe(false);
    expect(mcpServers.legacy).toEqual({ url: "http://127.0.0.1:8931/sse", transport: "sse" });
  });

  it("rejects text that is not JSON, naming the file", () => {
    expect(() => parseServersFile('{"mcpServers": {', SOURCE)).toThrow(`${SOURCE} is not valid JSON`);
    expect(() => parseServersFile("", SOURCE)).toThrow(/is not valid JSON/);
  });

  it("rejects JSON without mcpServers, naming the file and the expected shape", () => {
    const err = catchError(() => parseServersFile('{"servers": {}}', SOURCE));
    expect(err.message).toContain(SOURCE);
    expect(err.message).toContain('expected {"mcpServers"');
    expect(err.message).toContain("mcpServers:");
    expect(() => parseServersFile("[]", SOURCE)).toThrow(/\(root\)/);
  });

  it("names the server and the field of a malformed entry", () => {
    const badCommand = catchError(() => parseServersFile('{"mcpServers": {"fs": {"command": 42}}}', SOURCE));
    expect(badCommand.message).toContain("mcpServers.fs.command");
    expect(badCommand.message).toMatch(/expected string/);

    const badArgs = catchError(() =>
      parseServersFile('{"mcpServers": {"fs": {"command": "x", "args": "-y"}}}', SOURCE),
    );
    expect(badArgs.message).toContain("mcpServers.fs.args");

    const badEnv = catchError(() =>
      parseServersFile('{"mcpServers": {"fs": {"command": "x", "env": {"N": 1}}}}', SOURCE),
    );
    expect(badEnv.message).toContain("mcpServers.fs.env.N");

    // A remote entry's error is about its url, not about a missing `command`.
    const badUrl = catchError(() => parseServersFile('{"mcpServers": {"api": {"url": "not a url"}}}', SOURCE));
    expect(badUrl.message).toContain("mcpServers.api.url");
    expect(badUrl.message).not.toContain("mcpServers.api.command");

    const badTransport = catchError(() =>
      parseServersFile('{"mcpServers": {"api": {"url": "https://x.test/mcp", "transport": "ws"}}}', SOURCE),
    );
    expect(badTransport.message).toContain("mcpServers.api.transport");

    const neither = catchError(() => parseServersFile('{"mcpServers": {"odd": {"name": "x"}}}', SOURCE));
    expect(neither.message).toContain('mcpServers.odd: needs "command" (a local server) or "url" (a remote one)');

    const notObject = catchError(() => parseServersFile('{"mcpServers": {"odd": "npx my-server"}}', SOURCE));
    expect(notObject.message).toContain("mcpServers.odd");
  });

  it("accepts only http(s) URLs for remote servers", () => {
    // new URL("localhost:3000/mcp") parses (as the scheme "localhost:"), so a pasted host:port must be rejected here.
    for (const url of ["localhost:3000/mcp", "file:///etc/passwd", "ftp://example.com/mcp"]) {
      const err = catchError(() => parseServersFile(JSON.stringify({ mcpServers: { api: { url } } }), SOURCE));
      expect(err.message, url).toContain("mcpServers.api.url");
    }
  });
});

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}
