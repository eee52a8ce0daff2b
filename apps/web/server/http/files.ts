import { closeSync, createReadStream, readFile } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { type FsError, type PathPolicy, commitWrite, etagFromStats, isFsError } from "@textide/shared/node";
import {
  fileQuery,
  saveFileRequest,
  treeQuery,
  type FileResponse,
  type SaveConflictDetails,
  type SaveFileResponse,
  type TreeResponse,
} from "@textide/shared";
import { AppError } from "../errors.js";
import { detectTextEncoding, hasUtf8Bom, isKnownBinaryMime, mimeOf } from "../fs/mime.js";
import { listTree } from "../fs/tree.js";
import { readJsonBody, readQuery, sendJson } from "./respond.js";

const readFd = promisify(readFile) as (fd: number) => Promise<Buffer>;

/** Largest file `GET /api/file` returns and `PUT /api/file` accepts. */
export const MAX_TEXT_BYTES = 5 * 1024 * 1024;
const MAX_TREE_ENTRIES = 10_000;
// One folder level is what the explorer loads; it must hold a 20,000-file folder whole.
const MAX_FOLDER_ENTRIES = 100_000;
// JSON escaping can grow text up to 6x (\u00XX); cap the body well above the content cap.
const MAX_PUT_BODY = MAX_TEXT_BYTES * 6 + 1024;

export interface FileRouteDeps {
  policy: PathPolicy;
}

export async function getTree(deps: FileRouteDeps, url: URL, res: ServerResponse): Promise<void> {
  const { path: input, depth } = readQuery(url, treeQuery);
  const target = await deps.policy.resolveExisting(input);
  if (!target.stats.isDirectory()) {
    throw new AppError(400, "not_a_directory", `${target.display} is a file, not a directory.`);
  }
  const { entries, truncated } = await listTree(deps.policy, target.root, target.abs, {
    depth,
    maxEntries: depth === 1 ? MAX_FOLDER_ENTRIES : MAX_TREE_ENTRIES,
  });
  sendJson(res, 200, { path: target.display, root: target.root.name, entries, truncated } satisfies TreeResponse);
}

export async function getFile(deps: FileRouteDeps, url: URL, res: ServerResponse): Promise<void> {
  // The policy opens the file and checks that descriptor: the etag and the bytes come from the inode checked.
  const target = await deps.policy.openExisting(readQuery(url, fileQuery).path);
  const mime = mimeOf(target.abs);
  let bytes: Buffer;
  try {
    if (!target.stats.isFile()) throw notAFile(target.display);
    if (target.stats.size > BigInt(MAX_TEXT_BYTES)) {
      throw new AppError(
        413,
        "too_large",
        `${target.display} is ${target.stats.size} bytes; the editor opens text files up to ${MAX_TEXT_BYTES} bytes. Use /api/raw?path=… to download it.`,
      );
    }
    if (isKnownBinaryMime(mime)) throw binary(target.display, mime);
    bytes = await readFd(target.fd);
  } finally {
    closeSync(target.fd);
  }
  const etag = etagFromStats(target.stats);
  const encoding = detectTextEncoding(bytes);
  if (encoding === undefined) throw binary(target.display, mime);
  const content =
    encoding === "utf-8"
      ? new TextDecoder("utf-8", { ignoreBOM: false }).decode(hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes)
      : new TextDecoder(encoding).decode(bytes);
  sendJson(res, 200, {
    path: target.display,
    content,
    etag,
    encoding,
    size: bytes.length,
    mime,
  } satisfies FileResponse);
}

export async function putFile(deps: FileRouteDeps, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const input = readQuery(url, fileQuery).path;
  const parsed = saveFileRequest.safeParse(await readJsonBody(req, MAX_PUT_BODY));
  if (!parsed.success) {
    throw new AppError(400, "bad_request", "Body must be {content: string, expectedEtag?: string}.");
  }
  const { content, expectedEtag } = parsed.data;
  const data = Buffer.from(content, "utf8");
  if (data.length > MAX_TEXT_BYTES) {
    throw new AppError(413, "too_large", `The content is ${data.length} bytes; the limit is ${MAX_TEXT_BYTES}.`);
  }
  const saved = await deps.policy.withParent(input, "write", { createParents: true }, async (target) => {
    const committed = await commitWrite(target, data, expectedEtag === undefined ? {} : { expectedEtag }).catch(
      (err: unknown) => {
        throw isFsError(err) ? forPeople(err, target.display) : err;
      },
    );
    return { ...committed, display: target.display };
  });
  sendJson(res, saved.created ? 201 : 200, {
    path: saved.display,
    etag: saved.etag,
    size: data.length,
    created: saved.created,
  } satisfies SaveFileResponse);
}

/** The editor's wording for a refused save (the FsError's text is written for a model). */
function forPeople(err: FsError, display: string): AppError | FsError {
  if (err.code === "conflict") {
    const deleted = err.details.deleted === true;
    return new AppError(
      409,
      "conflict",
      deleted
        ? `${display} was deleted on disk since it was opened. Save again to recreate it.`
        : `${display} was changed on disk since it was opened. Reload it, or save again to overwrite.`,
      { cause: err, details: { currentEtag: currentEtagOf(err), deleted } satisfies SaveConflictDetails },
    );
  }
  if (err.code === "is_directory") {
    return new AppError(400, "is_directory", `${display} is a folder; choose a file path.`, { cause: err });
  }
  return err;
}

export async function getRaw(deps: FileRouteDeps, url: URL, res: ServerResponse): Promise<void> {
  const target = await deps.policy.openExisting(readQuery(url, fileQuery).path);
  if (!target.stats.isFile()) {
    closeSync(target.fd);
    throw notAFile(target.display);
  }
  const mime = mimeOf(target.abs);
  const size = Number(target.stats.size);
  const download = url.searchParams.get("download") === "1";
  const csp = mime === "image/svg+xml" ? "sandbox; default-src 'none'; style-src 'unsafe-inline'" : "sandbox";
  res.writeHead(200, {
    "content-type": mime,
    "content-length": size,
    "x-content-type-options": "nosniff",
    "content-security-policy": csp,
    "cache-control": "no-store",
    ...(download
      ? { "content-disposition": attachment(target.display.slice(target.display.lastIndexOf("/") + 1)) }
      : {}),
  });
  if (size === 0) {
    closeSync(target.fd);
    res.end();
    return;
  }
  // The stream owns the descriptor and closes it; Content-Length was fixed from the same open file.
  await pipeline(createReadStream("", { fd: target.fd, start: 0, end: size - 1 }), res).catch(() => {
    res.destroy();
  });
}

/** RFC 6266 `attachment` with an ASCII fallback and the exact name as RFC 5987 `filename*`. */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function notAFile(display: string): AppError {
  return new AppError(400, "not_a_file", `${display} is a directory; use /api/tree?path=… to list it.`);
}

function binary(display: string, mime: string): AppError {
  return new AppError(
    415,
    "unsupported_media_type",
    `${display} is a binary file (${mime}); the text editor cannot open it. Fetch its bytes from /api/raw?path=… instead.`,
    { details: { mime } },
  );
}

function currentEtagOf(err: FsError): string | null {
  const etag = err.details.currentEtag;
  return typeof etag === "string" ? etag : null;
}
