import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { ROOT } from "@textide/shared";
import type { PathPolicy } from "@textide/shared/node";
import type { WrittenFile } from "../exec/protocol.js";
import { mimeOf } from "../fs/mime.js";
import { PY_LIMITS } from "./limits.js";

const OPEN_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const IMAGE_MIMES = new Set(["image/png", "image/svg+xml"]);

export interface CollectedOutputs {
  files: WrittenFile[];
  /** PNG/SVG outputs small enough to return as image content, in the order written. */
  images: { data: string; mimeType: string }[];
}

/**
 * Turns the paths the sandbox reported writing (untrusted: user code can write anything to that
 * channel) into checked outputs. Each goes through the path policy's anchored open: the parent
 * folder is opened as a checked descriptor, and the file itself is opened with O_NOFOLLOW, so a
 * symlink the code planted in generated_assets is skipped, never followed out of the roots.
 * Files deleted again before the run ended are not outputs.
 */
export async function collectOutputs(policy: PathPolicy, reported: readonly string[]): Promise<CollectedOutputs> {
  const files: WrittenFile[] = [];
  const images: CollectedOutputs["images"] = [];
  let imageBytes = 0;
  for (const rel of new Set(reported)) {
    if (files.length >= PY_LIMITS.maxListedOutputs) break;
    if (typeof rel !== "string" || rel.length === 0 || rel.length > 4096) continue;
    try {
      await policy.withParent(`${ROOT.assets}/${rel}`, "read", {}, async (entry) => {
        if (entry.root.name !== ROOT.assets || !entry.stats?.isFile()) return;
        const fd = openSync(entry.at, OPEN_FILE);
        try {
          const stats = fstatSync(fd);
          if (!stats.isFile()) return;
          const mime = mimeOf(entry.name);
          const keep =
            IMAGE_MIMES.has(mime) &&
            images.length < PY_LIMITS.maxImages &&
            stats.size <= PY_LIMITS.maxImageBytes &&
            imageBytes + stats.size <= PY_LIMITS.maxImageTotalBytes;
          const { sha256, bytes, data } = hashFile(fd, keep);
          files.push({ path: entry.display, bytes, mime, sha256 });
          if (data) {
            images.push({ data: data.toString("base64"), mimeType: mime });
            imageBytes += data.length;
          }
        } finally {
          closeSync(fd);
        }
        return Promise.resolve();
      });
    } catch {
      // Gone, outside the roots, or not a regular file: not an output.
    }
  }
  return { files, images };
}

function hashFile(fd: number, keep: boolean): { sha256: string; bytes: number; data?: Buffer } {
  const hash = createHash("sha256");
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
    hash.update(buf.subarray(0, n));
    if (keep) chunks.push(Buffer.from(buf.subarray(0, n)));
    bytes += n;
  }
  return { sha256: hash.digest("hex"), bytes, ...(keep ? { data: Buffer.concat(chunks) } : {}) };
}
