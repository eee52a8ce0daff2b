export * from "./fs-error.js";
export * from "./path-policy.js";
export * from "./atomic-write.js";
export * from "./etag.js";
export * from "./tables/index.js";
