export * from "./cells.js";
export * from "./xlsx.js";
