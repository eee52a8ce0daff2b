export {
  OfflinePlanner,
  OFFLINE_PLANNER_MODEL,
  type OfflinePlannerCallOptions,
  type OfflinePlannerFields,
} from "./offline-planner.js";
export { parseIntent } from "./intent/parse.js";
export type { Intent } from "./types.js";
