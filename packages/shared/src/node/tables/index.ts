export * from "./cells.js";
export * from "./xlsx.js";
export * from "./delimited.js";
export * from "./delimited-file.js";
export * from "./sort.js";
