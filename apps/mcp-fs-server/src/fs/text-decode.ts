import { isUtf8 } from "node:buffer";
import chardet from "chardet";

/** How a file's bytes should be presented: decoded text, or binary (base64). */
export type Encoding = { kind: "text"; label: string; unit: 1 | 2 } | { kind: "binary" };

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const MIN_CONFIDENCE = 50;
const UTF8 = new TextDecoder("utf-8");

/**
 * Decides the encoding from the first bytes of a file: BOMs, then strict UTF-8, then NUL bytes
 * (binary), then chardet's guess for legacy 8-bit encodings.
 */
export function detectEncoding(head: Uint8Array): Encoding {
  if (head.length >= 3 && UTF8_BOM.every((b, i) => head[i] === b)) return { kind: "text", label: "utf-8", unit: 1 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { kind: "text", label: "utf-16le", unit: 2 };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { kind: "text", label: "utf-16be", unit: 2 };
  if (isValidUtf8Text(head)) return { kind: "text", label: "utf-8", unit: 1 };
  if (head.includes(0)) return { kind: "binary" };
  // Short samples give chardet weak, arbitrary guesses; below this confidence the most common
  // legacy encoding (windows-1252, a superset of Latin-1) is the better bet.
  const best = chardet.analyse(head)[0];
  const guess = best && best.confidence >= MIN_CONFIDENCE ? best.name.toLowerCase() : undefined;
  if (guess && !guess.startsWith("utf") && isDecodable(guess)) return { kind: "text", label: guess, unit: 1 };
  return { kind: "text", label: "windows-1252", unit: 1 };
}

function isValidUtf8Text(bytes: Uint8Array): boolean {
  // A page may end inside a multi-byte character: accept up to 3 trailing bytes of one.
  const body = bytes.subarray(0, utf8SafeEnd(bytes, bytes.length));
  return isUtf8(body) && !body.includes(0);
}

function isDecodable(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** Largest `end <= length` that does not split a UTF-8 sequence. */
export function utf8SafeEnd(bytes: Uint8Array, length: number): number {
  let i = length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && ((bytes[i] ?? 0) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return length;
  const lead = bytes[i] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i : length;
}

/** Decodes one page, trimming a split character at its end; returns the bytes consumed. */
export function decodePage(
  bytes: Uint8Array,
  enc: Extract<Encoding, { kind: "text" }>,
  atEof: boolean,
): { text: string; consumed: number } {
  let end = bytes.length;
  if (!atEof) {
    if (enc.label === "utf-8") end = utf8SafeEnd(bytes, bytes.length);
    else if (enc.unit === 2) end -= end % 2;
  }
  const text =
    enc.label === "utf-8"
      ? UTF8.decode(bytes.subarray(0, end))
      : new TextDecoder(enc.label).decode(bytes.subarray(0, end));
  return { text, consumed: end };
}
