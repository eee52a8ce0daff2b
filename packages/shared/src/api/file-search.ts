/** One hit of `GET /api/files?q=&limit=` (quick open). */
export interface FileSearchHit {
  path: string;
  /** Higher is better; hits come sorted by it. */
  score: number;
}

export interface FileSearchResponse {
  hits: FileSearchHit[];
  truncated: boolean;
}
