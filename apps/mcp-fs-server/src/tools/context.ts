import type { PathPolicy } from "@textide/shared/node";
import type { Logger } from "../log.js";
import type { IdeClient } from "./system/ide-client.js";

/** What every tool handler receives; built once per server instance. */
export interface ToolContext {
  policy: PathPolicy;
  log: Logger;
  ide: IdeClient;
}
