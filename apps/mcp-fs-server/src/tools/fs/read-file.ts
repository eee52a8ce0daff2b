import { closeSync, readSync, type BigIntStats } from "node:fs";
import type { McpServer } from "@modelcontextprotocol/server";
import { readFileInput, readFileOutput, TOOL } from "@textide/shared";
import { FsError, fromNodeError, etagFromStats } from "@textide/shared/node";
import { isImageMime, isKnownBinaryMime, mimeOf } from "../../fs/mime.js";
import { decodePage, detectEncoding, type Encoding } from "../../fs/text-decode.js";
import type { ToolContext } from "../context.js";
import { REPLY_BUDGET_BYTES, jsonStringBytes } from "../reply-budget.js";
import { defineTool } from "../result.js";
import { formatBytes } from "./format.js";

const SNIFF_BYTES = 64 * 1024;
// The page's payload leaves room in the reply budget for the metadata and the continuation note.
const PAYLOAD_BUDGET = REPLY_BUDGET_BYTES - 16 * 1024;
// Base64 grows bytes by 4/3.
const MAX_BASE64_BYTES = Math.floor((PAYLOAD_BUDGET * 3) / 4);

export function registerReadFile(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    TOOL.readFile,
    {
      title: "Read file",
      description:
        "Read a file from the workspace. Text comes back decoded (encoding detected: UTF-8, UTF-16, " +
        "Latin-1 and other legacy encodings); images come back as image content a multimodal model can " +
        "see; other binary files (xlsx, pdf, zip) come back as a base64 resource. Reads at most `maxBytes` " +
        "(default 256 KB, max 1 MB) starting at `offset`: when `truncated` is true, call again with " +
        "`offset` = `nextOffset` to continue, so files of any size can be read page by page. One reply " +
        "stays under 1 MB of JSON so that every client accepts it: a page of text that escapes heavily, " +
        "or of binary (base64), may end before `maxBytes`; always continue from `nextOffset`. " +
        "For spreadsheets and CSV tables prefer exec_run_js's readTable when it is available. " +
        "The result's `etag` can be passed to fs_write_file/fs_edit_file to detect concurrent changes. " +
        "Errors: not_found (use fs_search_files), is_directory (use fs_list_directory), outside_root, too_large (images over 700 KB, or over maxBytes).",
      input: readFileInput,
      output: readFileOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async (args, _req, _id, progress) => {
      const file = await ctx.policy.openExisting(args.path);
      let page: Page;
      let mime: string;
      let isImage: boolean;
      try {
        if (file.stats.isDirectory()) {
          throw new FsError(
            "is_directory",
            `${file.display} is a directory. Use fs_list_directory to see its entries.`,
          );
        }
        mime = mimeOf(file.abs);
        isImage = isImageMime(mime) && mime !== "image/svg+xml";
        // An image is returned whole or not at all, so it is always read from the start.
        page = readPage(file.fd, file.stats, file.display, isImage ? 0 : args.offset, args.maxBytes);
      } finally {
        closeSync(file.fd);
      }
      const { size, offset, bytes } = page;
      // Where this page leaves the reader in the whole file: a client can show a paged read's bar.
      const pageEnd = offset + bytes.length;
      await progress(pageEnd, size, `bytes ${offset}–${pageEnd} of ${size} read`, true);
      const base = { root: file.root.name, path: file.display, mime, size, etag: page.etag, offset };

      if (isImage) {
        if (size > MAX_BASE64_BYTES) {
          throw new FsError(
            "too_large",
            `${file.display} is an image of ${formatBytes(size)}; images come back whole as base64 only up to ${formatBytes(MAX_BASE64_BYTES)}, the most one reply carries. Use fs_get_file_info for its metadata.`,
          );
        }
        if (size > args.maxBytes) {
          throw new FsError(
            "too_large",
            `${file.display} is an image of ${formatBytes(size)}, larger than maxBytes (${formatBytes(args.maxBytes)}); raise maxBytes up to 1 MB or use fs_get_file_info.`,
          );
        }
        return {
          structured: { ...base, offset: 0, encoding: "base64", bytesRead: size, truncated: false },
          text: `${file.display}: ${mime} image, ${formatBytes(size)} (shown as image content).`,
          extra: [{ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType: mime }],
        };
      }

      const encoding: Encoding = isKnownBinaryMime(mime) ? { kind: "binary" } : detectEncoding(page.head);
      const atEof = offset + bytes.length >= size;

      if (encoding.kind === "binary") {
        const sent = bytes.subarray(0, MAX_BASE64_BYTES);
        const end = offset + sent.length;
        const truncated = end < size;
        return {
          structured: {
            ...base,
            encoding: "base64",
            bytesRead: sent.length,
            truncated,
            ...(truncated ? { nextOffset: end } : {}),
          },
          text: `${file.display}: binary ${mime}, ${formatBytes(size)}; bytes ${offset}–${end} attached as a base64 resource.${truncated ? ` Call again with offset=${end} for more.` : ""}`,
          extra: [
            {
              type: "resource",
              resource: {
                uri: `file://${encodeURI(file.abs)}`,
                mimeType: mime,
                blob: Buffer.from(sent).toString("base64"),
              },
            },
          ],
        };
      }

      const { text, consumed } = fitText(bytes, encoding, atEof);
      const end = offset + consumed;
      const truncated = end < size;
      const note = truncated
        ? [
            {
              type: "text" as const,
              text: `[truncated: bytes ${offset}–${end} of ${size}; call fs_read_file again with offset=${end} to continue]`,
            },
          ]
        : [];
      return {
        structured: {
          ...base,
          encoding: encoding.label,
          bytesRead: consumed,
          truncated,
          ...(truncated ? { nextOffset: end } : {}),
        },
        text,
        extra: note,
      };
    },
  );
}

interface Page {
  size: number;
  etag: string;
  offset: number;
  bytes: Uint8Array;
  /** The first bytes of the file, for encoding detection (the page itself when it starts at 0). */
  head: Uint8Array;
}

/**
 * Usually one read from the descriptor the path policy opened and checked. Synchronous: a page is
 * at most 1 MiB from local disk, cheaper than the thread-pool round trips of the async API.
 */
function readPage(fd: number, st: BigIntStats, display: string, wantOffset: number, maxBytes: number): Page {
  try {
    const size = Number(st.size);
    const offset = Math.min(wantOffset, size);
    const bytes = readAt(fd, offset, Math.min(maxBytes, size - offset));
    const head =
      offset === 0 && (bytes.length >= SNIFF_BYTES || bytes.length === size)
        ? bytes
        : readAt(fd, 0, Math.min(size, SNIFF_BYTES));
    return {
      size,
      etag: etagFromStats(st),
      offset,
      bytes,
      head: head.subarray(0, SNIFF_BYTES),
    };
  } catch (err) {
    throw fromNodeError(err, display);
  }
}

function readAt(fd: number, position: number, length: number): Uint8Array {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buf, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/**
 * Decodes the page, shortened until its text, escaped as JSON, fits the reply budget (control
 * characters escape to six bytes each, quotes and backslashes to two).
 */
function fitText(
  bytes: Uint8Array,
  encoding: Extract<Encoding, { kind: "text" }>,
  atEof: boolean,
): { text: string; consumed: number } {
  let page = decodePage(bytes, encoding, atEof);
  let weight = jsonStringBytes(page.text);
  while (weight > PAYLOAD_BUDGET && page.consumed > 0) {
    const keep = Math.max(1, Math.floor((page.consumed * PAYLOAD_BUDGET) / weight) - 8);
    page = decodePage(bytes.subarray(0, keep), encoding, false);
    weight = jsonStringBytes(page.text);
  }
  return page;
}
