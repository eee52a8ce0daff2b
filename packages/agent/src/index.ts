export {
  createAgent,
  type Agent,
  type AgentOptions,
  type AgentLogger,
  type RunInput,
  type RunResult,
} from "./agent.js";
export type { ApprovalDecision, ApprovalRequest } from "./graph.js";
export { McpHub, type HubOptions, type ServerStatus } from "./mcp/hub.js";
export { McpToolSet, type ToolSetOptions, type ToolArtifact, type ToolInfo } from "./mcp/tools.js";
export { parseServersFile, type ServerSpec, type McpServersFile } from "./mcp/server-config.js";
export { ToolNameMap, MODEL_TOOL_NAME } from "./mcp/tool-name.js";
export { McpToolError, isMcpToolError, type McpErrorClass } from "./mcp/errors.js";
export { toTrace } from "./trace.js";
export { NodeSqliteSaver, type ThreadSummary } from "./checkpoint/sqlite-saver.js";
export {
  isThreadStoreUnavailable,
  THREAD_DB_DOWN,
  threadTitleOf,
  type RunState,
  type StoredThread,
  type ThreadStore,
} from "./checkpoint/thread-store.js";
export { openThreadStore, type ThreadStoreOptions } from "./checkpoint/open-thread-store.js";
export { SqliteThreadStore } from "./checkpoint/sqlite-thread-store.js";
export { PostgresThreadStore, type PostgresThreadStoreOptions } from "./checkpoint/postgres-thread-store.js";
export {
  resolveModelConfig,
  describeModel,
  redactModelConfig,
  type ModelConfig,
  type ModelProvider,
} from "./models/config.js";
export { createChatModel } from "./models/create-chat-model.js";
export { OfflinePlanner } from "./planner/offline-planner.js";
