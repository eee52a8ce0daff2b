export {
  OfflinePlanner,
  OFFLINE_PLANNER_MODEL,
  type OfflinePlannerCallOptions,
  type OfflinePlannerFields,
} from "./offline-planner.js";
export { parseIntent, type Intent } from "./intent.js";
