import mime from "mime";

const TEXT_LIKE = /^(text\/|application\/(json|xml|javascript|x-sh|toml|yaml|x-yaml|sql|graphql|ld\+json|x-ndjson))/;

/** MIME type by extension; `application/octet-stream` when unknown. */
export function mimeOf(filePath: string): string {
  return mime.getType(filePath) ?? "application/octet-stream";
}

export function isImageMime(type: string): boolean {
  return /^image\/(png|jpeg|gif|webp|svg\+xml|bmp|x-icon|vnd\.microsoft\.icon|avif)$/.test(type);
}

/** Types whose bytes are certainly not text, whatever content sniffing says. */
export function isKnownBinaryMime(type: string): boolean {
  if (type === "image/svg+xml" || TEXT_LIKE.test(type)) return false;
  return (
    /^(image|audio|video|font)\//.test(type) ||
    /^application\/(pdf|zip|gzip|x-tar|x-7z-compressed|wasm|x-sqlite3|vnd\.)/.test(type)
  );
}
