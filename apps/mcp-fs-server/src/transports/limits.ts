import { MAX_WRITE_BYTES } from "../tools/fs/write-support.js";

const MIB = 1024 * 1024;

/**
 * Largest JSON-RPC message either transport reads (a stdio line, an HTTP body). Derived from the
 * write tools' limit so the two cannot drift apart: a maximal fs_write_file call sent as base64
 * (4/3 of the bytes) plus 1 MiB for the envelope, the path and JSON escaping. Text that escapes
 * to more than that fits as base64, which the error message says.
 */
export const MAX_MESSAGE_BYTES = Math.ceil(MAX_WRITE_BYTES / 3) * 4 + MIB;

/** `29010604 bytes (27.7 MiB)`: exact for machines, rounded for people. */
export function describeBytes(bytes: number): string {
  return `${bytes} bytes (${(bytes / MIB).toFixed(1)} MiB)`;
}

/** What a client is told when its message is over {@link MAX_MESSAGE_BYTES}; the caller names the size. */
export function messageTooLargeText(size: string, limit = MAX_MESSAGE_BYTES): string {
  return (
    `Message too large: ${size}; this server reads at most ${describeBytes(limit)} per JSON-RPC message, ` +
    `so it was not processed. fs_write_file takes up to ${MAX_WRITE_BYTES / MIB} MiB of content per call: send ` +
    `binary or heavily escaped text with encoding "base64", or split the content into several files.`
  );
}
