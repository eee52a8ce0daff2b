import {
  createChatModel,
  describeModel,
  OfflinePlanner,
  resolveModelConfig,
  type AgentOptions,
  type ModelProvider,
} from "@textide/agent";
import type { ModelInfo } from "@textide/shared";

export interface RuntimeModel {
  chat: AgentOptions["model"];
  info: ModelInfo;
  provider?: ModelProvider;
}

/** The model the settings name (TEXTIDE_MODEL, ANTHROPIC_API_KEY, …); the offline planner when none do. */
export function chooseModel(modelEnv: Readonly<Record<string, string | undefined>>): RuntimeModel {
  const cfg = resolveModelConfig(modelEnv);
  return {
    chat: createChatModel(cfg, { offline: () => new OfflinePlanner() }),
    info: describeModel(cfg),
    provider: cfg.provider,
  };
}
