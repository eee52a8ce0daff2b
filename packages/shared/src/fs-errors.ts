/** Error codes the file tools report; a model can act on each one (see the tool descriptions). */
export const FS_ERROR_CODES = [
  "invalid_path",
  "outside_root",
  "not_found",
  "is_directory",
  "not_a_directory",
  "not_a_file",
  "exists",
  "too_large",
  "denied",
  "read_only",
  "conflict",
  "no_match",
  "ambiguous_match",
  "unavailable",
  "timeout",
  "internal",
] as const;

export type FsErrorCode = (typeof FS_ERROR_CODES)[number];
