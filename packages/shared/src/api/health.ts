/** `GET /api/health`: the server is up, and the roots it serves (real paths). */
export interface HealthResponse {
  ok: true;
  roots: { name: string; path: string }[];
}
