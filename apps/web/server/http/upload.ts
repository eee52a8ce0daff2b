import { unlink, type FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ROOT, type UploadResponse } from "@textide/shared";
import {
  commitTemp,
  fromNodeError,
  openTemp,
  withEntryLock,
  type AnchoredPath,
  type PathPolicy,
} from "@textide/shared/node";
import { AppError, toAppError } from "../errors.js";
import { existsError, withEntry } from "../fs/entry.js";
import type { FileIndex } from "../fs/file-index.js";
import { sendJson } from "./respond.js";

export interface UploadDeps {
  policy: PathPolicy;
  index: FileIndex;
  maxBytes: number;
}

/**
 * `PUT /api/upload?path=&overwrite=1` with the raw bytes as body. The bytes stream into a hidden temp
 * file beside the target (skipped by the watcher), which is renamed into place only when complete;
 * a client that aborts, or a body over the limit, leaves nothing behind.
 */
export async function putUpload(deps: UploadDeps, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const overwrite = ["1", "true"].includes(url.searchParams.get("overwrite") ?? "");
  let reading = false;
  let saved: UploadResponse;
  try {
    const input = checkRequest(deps, url, req);
    saved = await withEntry(deps.policy, input, { createParents: true }, async (target) => {
      checkTarget(target, overwrite);
      const { tmp, handle } = await openTemp(target.dir, target.name);
      reading = true;
      const size = await receive(req, handle, () => unlink(target.dir.at(tmp)), deps.maxBytes);
      try {
        // Under the entry's lock, so an upload and an etag-checked save never interleave.
        await withEntryLock(target, () => commitTemp(target.dir, tmp, target.name, !overwrite));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") {
          throw existsError(target.display, "Upload again with overwrite=1 to replace it.");
        }
        throw fromNodeError(err, target.display);
      }
      return { path: target.display, size };
    });
  } catch (err) {
    throw reading ? err : closingConnection(err);
  }
  deps.index.addFile(saved.path);
  sendJson(res, 201, saved satisfies UploadResponse);
}

/**
 * A refusal before the body was read closes the connection: otherwise Node would read (and drop)
 * the whole body to keep it alive, and an overwrite retry would send a large file twice.
 */
function closingConnection(err: unknown): AppError {
  const e = toAppError(err);
  return new AppError(e.status, e.type, e.message, {
    ...(e.surface ? { surface: e.surface } : {}),
    cause: err,
    details: { ...e.details },
    headers: { ...e.headers, connection: "close" },
  });
}

function checkRequest(deps: UploadDeps, url: URL, req: IncomingMessage): string {
  const input = url.searchParams.get("path");
  if (!input) throw new AppError(400, "bad_request", "Missing `path` query parameter (the new file's workspace path).");
  if (deps.policy.locate(input).root.name !== ROOT.project) {
    throw new AppError(
      403,
      "forbidden",
      `Uploads go into project_root; ${ROOT.assets}/ holds the agent's outputs. Choose a project folder for ${input}.`,
    );
  }
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > deps.maxBytes) throw tooLarge(deps.maxBytes);
  return input;
}

/** Streams the body into the temp file, fsyncs, and returns its size; on any failure the temp file is removed. */
async function receive(
  req: IncomingMessage,
  handle: FileHandle,
  removeTemp: () => Promise<void>,
  maxBytes: number,
): Promise<number> {
  let size = 0;
  try {
    // A client abort makes the iteration throw, which lands in the cleanup below.
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      await handle.write(chunk);
    }
    await handle.sync();
    await handle.close();
    return size;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await removeTemp().catch(() => undefined);
    throw err;
  }
}

function checkTarget(target: AnchoredPath, overwrite: boolean): void {
  if (target.stats?.isDirectory()) {
    throw new AppError(400, "is_directory", `${target.display} is a folder; upload to a file path inside it.`);
  }
  if (target.stats?.isSymbolicLink()) {
    throw new AppError(403, "denied", `${target.display} is a symbolic link; uploads never replace links.`);
  }
  if (target.stats && !overwrite) throw existsError(target.display, "Upload again with overwrite=1 to replace it.");
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    413,
    "too_large",
    `The upload exceeds the limit of ${maxBytes} bytes (${(maxBytes / 1024 / 1024).toFixed(1)} MiB); raise TEXTIDE_UPLOAD_MAX_MB to allow larger files.`,
    { headers: { connection: "close" } },
  );
}
