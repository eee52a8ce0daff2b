/** The web server's REST contract, one module per route: request schemas (validated by the server) and answers. */
export * from "./query.js";
export * from "./health.js";
export * from "./tree.js";
export * from "./file.js";
export * from "./fs-ops.js";
export * from "./file-search.js";
export * from "./table.js";
export * from "./open-file.js";
export * from "./threads.js";
export * from "./model.js";
export * from "./mcp-calls.js";
