import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notBuiltReason, startWebProcess, type WebProcess } from "./browser-harness.js";
import { makeWorkspace, request, startServer, type Running, type Workspace } from "./helpers.js";

// Issue 11, items 6b and 6c: mutating endpoints took a `text/plain` JSON body (which a page on another
// site can send without a preflight) when no Origin was sent, and an absolute-form request target
// (`GET http://evil.example/ HTTP/1.1`) was answered with a redirect to that host.

interface ErrorBody {
  error: { code: string; message: string };
}

let ws: Workspace;
let srv: Running;

beforeAll(async () => {
  ws = await makeWorkspace();
  srv = await startServer(ws);
});
afterAll(async () => {
  await srv?.close();
  await ws?.remove();
});

/** Writes `head` on a raw TCP socket and returns the whole reply as text (the server closes or we stop at the body). */
function raw(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let text = "";
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      const headEnd = text.indexOf("\r\n\r\n");
      const length = /^content-length: (\d+)$/im.exec(text)?.[1];
      if (headEnd >= 0 && length !== undefined && text.length >= headEnd + 4 + Number(length)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

const statusLine = (reply: string) => reply.slice(0, reply.indexOf("\r\n"));

describe("JSON bodies must be sent as application/json (6b)", () => {
  const body = (json: unknown) => Buffer.from(JSON.stringify(json));

  it("refuses text/plain and missing content types with 415 and changes nothing", async () => {
    const types: Record<string, string>[] = [
      { "content-type": "text/plain" },
      { "content-type": "text/plain;charset=UTF-8" },
      {},
    ];
    for (const headers of types) {
      const create = await request(srv.port, "POST", "/api/fs/create", {
        rawBody: body({ path: "csrf.txt", type: "file" }),
        headers,
      });
      expect(create.status).toBe(415);
      const error = (create.json() as ErrorBody).error;
      expect(error.code).toBe("unsupported_media_type:api");
      expect(error.message).toContain("Content-Type: application/json");
      expect(existsSync(path.join(ws.project, "csrf.txt"))).toBe(false);

      const save = await request(srv.port, "PUT", `/api/file?path=README.md`, {
        rawBody: body({ content: "overwritten" }),
        headers,
      });
      expect(save.status).toBe(415);
      expect(await readFile(path.join(ws.project, "README.md"), "utf8")).not.toBe("overwritten");

      const rename = await request(srv.port, "POST", "/api/fs/rename", {
        rawBody: body({ from: "README.md", to: "gone.md" }),
        headers,
      });
      expect(rename.status).toBe(415);
      expect(existsSync(path.join(ws.project, "README.md"))).toBe(true);
    }
  });

  it("accepts application/json, with or without parameters", async () => {
    const r = await request(srv.port, "POST", "/api/fs/create", {
      rawBody: body({ path: "ok.txt", type: "file" }),
      headers: { "content-type": "Application/JSON; charset=utf-8" },
    });
    expect(r.status).toBe(201);
    expect(existsSync(path.join(ws.project, "ok.txt"))).toBe(true);
  });
});

describe("absolute-form request targets (6c)", () => {
  it("answers 400 on the API server, for any host named in the target", async () => {
    const host = `127.0.0.1:${srv.port}`;
    for (const target of ["http://evil.example/api/health", `http://${host}/api/health`, "http://evil.example/"]) {
      const reply = await raw(srv.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(statusLine(reply)).toBe("HTTP/1.1 400 Bad Request");
      expect(reply).not.toMatch(/^location:/im);
    }
    const normal = await raw(srv.port, `GET /api/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(statusLine(normal)).toBe("HTTP/1.1 200 OK");
  });
});

describe.skipIf(notBuiltReason !== undefined)("absolute-form request targets on the production server (6c)", () => {
  let web: WebProcess;
  let wsProd: Workspace;
  beforeAll(async () => {
    wsProd = await makeWorkspace();
    web = await startWebProcess(wsProd);
  });
  afterAll(async () => {
    await web?.stop();
    await wsProd?.remove();
  });

  it("answers 400 instead of Next.js's redirect to the named host", async () => {
    const { host, port } = new URL(web.base);
    for (const target of ["http://evil.example/", "http://evil.example/some/page", "http://evil.example/api/tree"]) {
      const reply = await raw(Number(port), `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(statusLine(reply)).toBe("HTTP/1.1 400 Bad Request");
      expect(reply).not.toMatch(/^location:/im);
    }
  });
});
