import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { commitWrite, fromNodeError, isFsError, isInside, moveAt, removeAt } from "@textide/shared/node";
import type { PathPolicy } from "@textide/shared/node";
import type { z } from "zod";
import {
  createEntryRequest,
  renameEntryRequest,
  type CreateEntryResponse,
  type DeleteEntryResponse,
  type RenameEntryResponse,
} from "@textide/shared";
import { AppError } from "../errors.js";
import { existsError, withEntry } from "../fs/entry.js";
import type { FileIndex } from "../fs/file-index.js";
import { readJsonBody, sendJson } from "./respond.js";

export interface FileOpsDeps {
  policy: PathPolicy;
  index: FileIndex;
}

const MAX_BODY = 64 * 1024;

async function parse<T>(req: IncomingMessage, schema: z.ZodType<T>, shape: string): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(req, MAX_BODY));
  if (!parsed.success) throw new AppError(400, "bad_request", `Body must be ${shape}.`);
  return parsed.data;
}

/** `POST /api/fs/create` `{path, type}`: a new empty file or folder; missing parent folders are created. */
export async function postCreate(deps: FileOpsDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parse(req, createEntryRequest, '{path: string, type: "file" | "directory"}');
  const display = await withEntry(deps.policy, body.path, { createParents: true }, async (target) => {
    if (target.stats) throw existsError(target.display);
    try {
      // Exclusive in both cases: a file or folder created meanwhile is a 409, never overwritten.
      if (body.type === "file") await commitWrite(target, new Uint8Array(), { exclusive: true });
      else await mkdir(target.at);
    } catch (err) {
      throw asExists(err, target.display);
    }
    return target.display;
  });
  if (body.type === "file") deps.index.addFile(display);
  sendJson(res, 201, { path: display, type: body.type } satisfies CreateEntryResponse);
}

/** `POST /api/fs/rename` `{from, to}`: rename or move, also between the two roots; never overwrites. */
export async function postRename(deps: FileOpsDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parse(req, renameEntryRequest, "{from: string, to: string}");
  const moved = await withEntry(deps.policy, body.from, {}, (from) =>
    withEntry(deps.policy, body.to, { createParents: true }, async (to) => {
      if (!from.stats) {
        throw new AppError(
          404,
          "not_found",
          `${from.display} does not exist; refresh the explorer to see current files.`,
        );
      }
      if (to.stats) throw existsError(to.display, "Choose another name, or delete it first.");
      if (isInside(path.join(from.dir.real, from.name), path.join(to.dir.real, to.name))) {
        throw new AppError(400, "bad_request", `Cannot move ${from.display} into itself (${to.display}).`);
      }
      await moveAt(from, to).catch((err: unknown) => {
        throw asExists(err, to.display);
      });
      return { from: from.display, to: to.display };
    }),
  );
  deps.index.move(moved.from, moved.to);
  sendJson(res, 200, moved satisfies RenameEntryResponse);
}

/** `DELETE /api/fs?path=`: a file, a symlink (not its target) or a folder with everything in it. */
export async function deleteEntry(deps: FileOpsDeps, url: URL, res: ServerResponse): Promise<void> {
  const input = url.searchParams.get("path");
  if (!input) throw new AppError(400, "bad_request", "Missing `path` query parameter.");
  const display = await withEntry(deps.policy, input, {}, async (target) => {
    if (!target.stats) {
      throw new AppError(404, "not_found", `${target.display} does not exist; nothing to delete.`);
    }
    await removeAt(target);
    return target.display;
  });
  deps.index.remove(display);
  sendJson(res, 200, { path: display } satisfies DeleteEntryResponse);
}

function asExists(err: unknown, display: string): unknown {
  if (isFsError(err) && err.code === "exists") return existsError(display);
  const code = (err as NodeJS.ErrnoException).code;
  return code === "EEXIST" || code === "ENOTEMPTY" ? existsError(display) : fromNodeError(err, display);
}
