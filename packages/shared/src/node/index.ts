export * from "./fs-error.js";
export * from "./path-policy.js";
