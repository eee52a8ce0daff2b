import { isUtf8 } from "node:buffer";
import mime from "mime";

const TEXT_LIKE = /^(text\/|application\/(json|xml|javascript|x-sh|toml|yaml|x-yaml|sql|graphql|ld\+json|x-ndjson))/;

/** MIME type by extension; `application/octet-stream` when unknown. */
export function mimeOf(filePath: string): string {
  return mime.getType(filePath) ?? "application/octet-stream";
}

/** Types whose bytes are certainly not text, whatever the content looks like. */
export function isKnownBinaryMime(type: string): boolean {
  if (type === "image/svg+xml" || TEXT_LIKE.test(type)) return false;
  return (
    /^(image|audio|video|font)\//.test(type) ||
    /^application\/(pdf|zip|gzip|x-tar|x-7z-compressed|wasm|x-sqlite3|vnd\.)/.test(type)
  );
}

/** Text encoding of a whole file's bytes, or undefined for binary content. */
export function detectTextEncoding(bytes: Uint8Array): "utf-8" | "windows-1252" | undefined {
  const body = hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes;
  if (body.includes(0)) return undefined;
  if (isUtf8(body)) return "utf-8";
  // Not UTF-8 and no NUL bytes: most likely a legacy 8-bit text (Latin-1 CSVs from spreadsheets).
  return "windows-1252";
}

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}
