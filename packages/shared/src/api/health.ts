/** `GET /api/health`: the server is up, and the roots it serves (real paths). */
export interface HealthResponse {
  ok: true;
  roots: { name: string; path: string }[];
  /** Team deployment: which instance answered (`TEXTIDE_INSTANCE_ID`), for the proxy's health checks. */
  instance?: string;
  /** Team deployment: whether this instance reaches Redis (down: its windows are cut off from the others'). */
  redis?: "up" | "down";
}
