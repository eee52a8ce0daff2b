import type { ModelInfo } from "../agent-events.js";

/** `GET /api/model` (404 while the server runs without the agent). */
export interface ModelResponse extends ModelInfo {
  /** Whether some tools wait for the user's approval (TEXTIDE_APPROVE). */
  approvals: boolean;
  /** How to switch from the offline planner to an LLM. */
  configureHint: string;
}
