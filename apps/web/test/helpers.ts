import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { io as ioClient, type Socket } from "socket.io-client";
import { createWebServer, type WebServer } from "../server/app.js";
import type { WebConfig } from "../server/config.js";
import { silentLogger } from "../server/log.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

export interface Workspace {
  dir: string;
  project: string;
  assets: string;
  /** A directory beside the roots, for escape attempts. */
  outside: string;
  remove(): Promise<void>;
}

/** A temp copy of the repo's project_root plus an empty generated_assets and an outside dir. */
export async function makeWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(tmpdir(), "textide-web-"));
  const project = path.join(dir, "project_root");
  const assets = path.join(dir, "generated_assets");
  const outside = path.join(dir, "outside");
  await cp(path.join(REPO, "project_root"), project, { recursive: true });
  await mkdir(assets);
  await mkdir(outside);
  return { dir, project, assets, outside, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface Running {
  app: WebServer;
  port: number;
  base: string;
  close(): Promise<void>;
}

export async function startServer(
  ws: Workspace,
  config: Partial<Pick<WebConfig, "ideToken" | "allowedHosts" | "uploadMaxBytes">> = {},
): Promise<Running> {
  const roots = await resolveRoots([
    { name: ROOT.project, path: ws.project, writable: true },
    { name: ROOT.assets, path: ws.assets, writable: true },
  ]);
  const app = createWebServer({
    config: {
      host: "127.0.0.1",
      ideToken: config.ideToken,
      allowedHosts: config.allowedHosts ?? [],
      uploadMaxBytes: config.uploadMaxBytes,
    },
    policy: new PathPolicy(roots),
    log: silentLogger,
  });
  await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  await app.watcher.ready;
  const port = (app.server.address() as AddressInfo).port;
  return { app, port, base: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: () => unknown;
}

/** Plain node:http request, so that tests control every header (fetch forbids setting Host). */
export function request(
  port: number,
  method: string,
  urlPath: string,
  opts: { body?: unknown; rawBody?: Buffer; chunked?: boolean; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const payload = opts.rawBody ?? (opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body)));
  const json = opts.rawBody === undefined && payload !== undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        headers: {
          ...(json ? { "content-type": "application/json" } : {}),
          ...(payload && !opts.chunked ? { "content-length": payload.length } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body.toString("utf8")) as unknown,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A connected socket.io client (websocket only, so connection counts are immediate). */
export async function connectClient(base: string, extraHeaders?: Record<string, string>): Promise<Socket> {
  const socket = ioClient(base, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (err) => {
      socket.close();
      reject(err);
    });
  });
  return socket;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
