import type { IncomingMessage, ServerResponse } from "node:http";
import type { PathPolicy } from "@textide/shared/node";
import { AppError } from "../errors.js";
import { openFileRequest, type OpenFileResponse } from "@textide/shared";
import type { Broadcast } from "../broadcast.js";
import { checkBearer } from "../security/request-guard.js";
import { readJsonBody, sendJson } from "./respond.js";

/**
 * `POST /api/open-file {path, line?}`: what the MCP server's `system_open_file` calls. Emits
 * `file/open` to every browser and answers how many were connected.
 */
export async function postOpenFile(
  deps: { policy: PathPolicy; broadcast: Broadcast; token: string | undefined },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (deps.token !== undefined) checkBearer(req, deps.token);
  const parsed = openFileRequest.safeParse(await readJsonBody(req, 64 * 1024));
  if (!parsed.success) {
    throw new AppError(400, "bad_request", "Body must be {path: string, line?: positive integer}.");
  }
  const target = await deps.policy.resolveExisting(parsed.data.path);
  const event = { path: target.display, ...(parsed.data.line !== undefined ? { line: parsed.data.line } : {}) };
  const clients = await deps.broadcast.openFile(event);
  sendJson(res, 200, { path: target.display, clients } satisfies OpenFileResponse);
}
