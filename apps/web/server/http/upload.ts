import { link, mkdir, open, rename, unlink } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ROOT } from "@textide/shared";
import { atomicTempPath, fromNodeError, type PathPolicy } from "@textide/shared/node";
import { AppError, toAppError } from "../errors.js";
import { existsError, resolveEntry } from "../fs/entry.js";
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
  let target: Awaited<ReturnType<typeof resolveEntry>>;
  try {
    target = await checkTarget(deps, url, req, overwrite);
  } catch (err) {
    // Refused before the body was read: close the connection, or Node would read (and drop) the whole
    // body to keep it alive, and an overwrite retry would send a large file twice.
    const e = toAppError(err);
    throw new AppError(e.status, e.code, e.message, {
      cause: err,
      details: { ...e.details },
      headers: { ...e.headers, connection: "close" },
    });
  }

  await mkdir(target.parentAbs, { recursive: true });
  const tmp = atomicTempPath(target.abs);
  const size = await receive(req, tmp, deps.maxBytes);
  try {
    if (overwrite) {
      await rename(tmp, target.abs);
    } else {
      // link() fails with EEXIST instead of replacing a file that appeared during the upload.
      await link(tmp, target.abs);
      await unlink(tmp);
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw existsError(target.display, "Upload again with overwrite=1 to replace it.");
    }
    throw fromNodeError(err, target.display);
  }
  deps.index.addFile(target.display);
  sendJson(res, 201, { path: target.display, size });
}

/** Streams the body into `tmp` ('wx': never reuses an existing name), fsyncs, and returns its size. */
async function receive(req: IncomingMessage, tmp: string, maxBytes: number): Promise<number> {
  const handle = await open(tmp, "wx", 0o644);
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
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

async function checkTarget(deps: UploadDeps, url: URL, req: IncomingMessage, overwrite: boolean) {
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
  const target = await resolveEntry(deps.policy, input);
  if (target.stats?.isDirectory()) {
    throw new AppError(400, "is_directory", `${target.display} is a folder; upload to a file path inside it.`);
  }
  if (target.stats?.isSymbolicLink()) {
    throw new AppError(403, "denied", `${target.display} is a symbolic link; uploads never replace links.`);
  }
  if (target.stats && !overwrite) throw existsError(target.display, "Upload again with overwrite=1 to replace it.");
  return target;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    413,
    "too_large",
    `The upload exceeds the limit of ${maxBytes} bytes (${(maxBytes / 1024 / 1024).toFixed(1)} MiB); raise TEXTIDE_UPLOAD_MAX_MB to allow larger files.`,
    { headers: { connection: "close" } },
  );
}
