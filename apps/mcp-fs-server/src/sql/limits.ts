/** Caps of one sql_query call; the tool description quotes them to the model. */
export const SQL_LIMITS = {
  /** The server's statement timeout (DuckDB has none of its own: the worker interrupts the query). */
  defaultTimeoutMs: 30_000,
  /** DuckDB's memory_limit per query. */
  memoryMb: 1024,
  /** DuckDB worker threads per query. */
  threads: 2,
  /** Largest workspace file one query reads (it is copied into the sandbox's scratch folder). */
  maxInputBytes: 512 * 1024 * 1024,
  /** Copies kept for reuse by later queries, in bytes, oldest dropped first. */
  maxCacheBytes: 1024 * 1024 * 1024,
  /** Largest file one COPY … TO may write. */
  maxOutputBytes: 100 * 1024 * 1024,
  /** Files one query may write. */
  maxOutputs: 20,
  /** JSON bytes of `rows` in one reply (the whole reply must stay under 1,000,000 bytes). */
  maxRowBytes: 600_000,
  /** Rows and characters per cell shown in the Markdown preview. */
  previewRows: 20,
  previewCellChars: 60,
} as const;
