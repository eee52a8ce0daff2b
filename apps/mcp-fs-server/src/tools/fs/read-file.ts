import { open } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/server";
import { readFileInput, readFileOutput, TOOL } from "@textide/shared";
import { FsError, fromNodeError } from "@textide/shared/node";
import { etagOf } from "../../fs/etag.js";
import { isImageMime, isKnownBinaryMime, mimeOf } from "../../fs/mime.js";
import { decodePage, detectEncoding, type Encoding } from "../../fs/text-decode.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../result.js";
import { formatBytes } from "./format.js";

const SNIFF_BYTES = 64 * 1024;

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
        "`offset` = `nextOffset` to continue, so files of any size can be read page by page. " +
        "For spreadsheets and CSV tables prefer exec_run_js's readTable when it is available. " +
        "The result's `etag` can be passed to fs_write_file/fs_edit_file to detect concurrent changes. " +
        "Errors: not_found (use fs_search_files), is_directory (use fs_list_directory), outside_root, too_large (images over 1 MB).",
      input: readFileInput,
      output: readFileOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async (args) => {
      const file = await ctx.policy.resolveExisting(args.path);
      if (file.stats.isDirectory()) {
        throw new FsError("is_directory", `${file.display} is a directory. Use fs_list_directory to see its entries.`);
      }
      const handle = await open(file.abs, "r").catch((err: unknown) => {
        throw fromNodeError(err, file.display);
      });
      try {
        const { size } = await handle.stat();
        const etag = await etagOf(file.abs);
        const mime = mimeOf(file.abs);
        const offset = Math.min(args.offset, size);
        const base = { root: file.root.name, path: file.display, mime, size, etag, offset };

        if (isImageMime(mime) && mime !== "image/svg+xml") {
          if (size > args.maxBytes) {
            throw new FsError(
              "too_large",
              `${file.display} is an image of ${formatBytes(size)}, larger than maxBytes (${formatBytes(args.maxBytes)}); raise maxBytes up to 1 MB or use fs_get_file_info.`,
            );
          }
          const data = await readAt(handle, 0, size);
          return {
            structured: { ...base, offset: 0, encoding: "base64", bytesRead: size, truncated: false },
            text: `${file.display}: ${mime} image, ${formatBytes(size)} (shown as image content).`,
            extra: [{ type: "image", data: Buffer.from(data).toString("base64"), mimeType: mime }],
          };
        }

        const head = await readAt(handle, 0, Math.min(size, SNIFF_BYTES));
        const encoding: Encoding = isKnownBinaryMime(mime) ? { kind: "binary" } : detectEncoding(head);
        const page = await readAt(handle, offset, Math.min(args.maxBytes, size - offset));
        const atEof = offset + page.length >= size;

        if (encoding.kind === "binary") {
          const truncated = !atEof;
          return {
            structured: {
              ...base,
              encoding: "base64",
              bytesRead: page.length,
              truncated,
              ...(truncated ? { nextOffset: offset + page.length } : {}),
            },
            text: `${file.display}: binary ${mime}, ${formatBytes(size)}; bytes ${offset}–${offset + page.length} attached as a base64 resource.${truncated ? ` Call again with offset=${offset + page.length} for more.` : ""}`,
            extra: [
              {
                type: "resource",
                resource: {
                  uri: `file://${encodeURI(file.abs)}`,
                  mimeType: mime,
                  blob: Buffer.from(page).toString("base64"),
                },
              },
            ],
          };
        }

        const { text, consumed } = decodePage(page, encoding, atEof);
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
      } finally {
        await handle.close();
      }
    },
  );
}

async function readAt(
  handle: import("node:fs/promises").FileHandle,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}
