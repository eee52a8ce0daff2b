export * from "./tool-names.js";
export * from "./fs-errors.js";
export * from "./tool-schemas.js";
export * from "./agent-events.js";
export * from "./web-events.js";
export * from "./fuzzy.js";
export * from "./mcp-log.js";
export * from "./errors.js";
