import { cp, mkdir, rename, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { atomicTempPath, atomicWrite, fromNodeError, isInside, type PathPolicy } from "@textide/shared/node";
import { z } from "zod";
import { AppError } from "../errors.js";
import { existsError, resolveEntry } from "../fs/entry.js";
import type { FileIndex } from "../fs/file-index.js";
import { readJsonBody, sendJson } from "./respond.js";

export interface FileOpsDeps {
  policy: PathPolicy;
  index: FileIndex;
}

const MAX_BODY = 64 * 1024;

const createBody = z.object({ path: z.string().min(1), type: z.enum(["file", "directory"]) });
const renameBody = z.object({ from: z.string().min(1), to: z.string().min(1) });

async function parse<T>(req: IncomingMessage, schema: z.ZodType<T>, shape: string): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(req, MAX_BODY));
  if (!parsed.success) throw new AppError(400, "bad_request", `Body must be ${shape}.`);
  return parsed.data;
}

/** `POST /api/fs/create` `{path, type}`: a new empty file or folder; missing parent folders are created. */
export async function postCreate(deps: FileOpsDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parse(req, createBody, '{path: string, type: "file" | "directory"}');
  const target = await resolveEntry(deps.policy, body.path);
  if (target.stats) throw existsError(target.display);
  await mkdir(target.parentAbs, { recursive: true });
  try {
    // Exclusive in both cases: a file or folder created meanwhile is a 409, never overwritten.
    if (body.type === "file") await atomicWrite(target.abs, new Uint8Array(), true);
    else await mkdir(target.abs);
  } catch (err) {
    throw asExists(err, target.display);
  }
  if (body.type === "file") deps.index.addFile(target.display);
  sendJson(res, 201, { path: target.display, type: body.type });
}

/** `POST /api/fs/rename` `{from, to}`: rename or move, also between the two roots; never overwrites. */
export async function postRename(deps: FileOpsDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parse(req, renameBody, "{from: string, to: string}");
  const from = await resolveEntry(deps.policy, body.from);
  if (!from.stats) {
    throw new AppError(404, "not_found", `${from.display} does not exist; refresh the explorer to see current files.`);
  }
  const to = await resolveEntry(deps.policy, body.to);
  if (to.stats) throw existsError(to.display, "Choose another name, or delete it first.");
  if (isInside(from.abs, to.abs)) {
    throw new AppError(400, "bad_request", `Cannot move ${from.display} into itself (${to.display}).`);
  }
  await mkdir(to.parentAbs, { recursive: true });
  // No rename-without-replace in Node: the lstat above is the check, so a racing writer could lose.
  try {
    await rename(from.abs, to.abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw asExists(err, to.display);
    await moveAcrossDevices(from.abs, to.abs);
  }
  deps.index.move(from.display, to.display);
  sendJson(res, 200, { from: from.display, to: to.display });
}

/** `DELETE /api/fs?path=`: a file, a symlink (not its target) or a folder with everything in it. */
export async function deleteEntry(deps: FileOpsDeps, url: URL, res: ServerResponse): Promise<void> {
  const input = url.searchParams.get("path");
  if (!input) throw new AppError(400, "bad_request", "Missing `path` query parameter.");
  const target = await resolveEntry(deps.policy, input);
  if (!target.stats) throw new AppError(404, "not_found", `${target.display} does not exist; nothing to delete.`);
  try {
    await rm(target.abs, { recursive: true });
  } catch (err) {
    throw fromNodeError(err, target.display);
  }
  deps.index.remove(target.display);
  sendJson(res, 200, { path: target.display });
}

/** The roots may sit on different file systems: copy under a hidden temp name, rename into place, then delete. */
async function moveAcrossDevices(fromAbs: string, toAbs: string): Promise<void> {
  const tmp = atomicTempPath(toAbs);
  try {
    await cp(fromAbs, tmp, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    await rename(tmp, toAbs);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  await rm(fromAbs, { recursive: true });
}

function asExists(err: unknown, display: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "EEXIST" || code === "ENOTEMPTY" ? existsError(display) : fromNodeError(err, display);
}
