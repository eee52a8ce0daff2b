import { createRequire } from "node:module";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";

export interface NextHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Dev only: Next's HMR websocket. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
  close(): Promise<void>;
}

/** The slice of Next's custom-server API used here. */
interface NextApp {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  getUpgradeHandler(): (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
  close(): Promise<void>;
}
type CreateNext = (opts: { dev: boolean; dir: string; hostname?: string; port?: number }) => NextApp;

// `next` is CommonJS (`module.exports = createServer`). Loading it through require keeps Next's global
// type augmentations (e.g. a required `process.env.NODE_ENV`) out of the server's type program.
const require = createRequire(import.meta.url);

/** Prepares the Next.js app in `dir` (production: the `.next` build must exist) and returns its handlers. */
export async function createNextHandler(opts: {
  dev: boolean;
  dir: string;
  hostname: string;
  port: number;
}): Promise<NextHandler> {
  const next = require("next") as CreateNext;
  const app = next({ dev: opts.dev, dir: opts.dir, hostname: opts.hostname, port: opts.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  return {
    handle: (req, res) => handle(req, res),
    upgrade: opts.dev ? app.getUpgradeHandler() : undefined,
    close: () => app.close(),
  };
}

/** apps/web, from `server/` under tsx and from `dist/server/` once built. */
export function uiDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === "dist" ? path.resolve(here, "../..") : path.resolve(here, "..");
}
