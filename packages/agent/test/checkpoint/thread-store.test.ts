import { describe, expect, it } from "vitest";
import { isThreadStoreUnavailable } from "../../src/checkpoint/thread-store.js";

describe("isThreadStoreUnavailable", () => {
  it("knows the connection failures of node-postgres and Postgres, and nothing else", () => {
    const down = [
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      Object.assign(new Error("connection failure"), { code: "08006" }),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
    ];
    for (const err of down) expect(isThreadStoreUnavailable(err), err.message).toBe(true);
    const other = [
      Object.assign(new Error('relation "checkpoints" does not exist'), { code: "42P01" }),
      Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
      new Error('Invalid configurable "thread_id"'),
      undefined,
      "ECONNREFUSED",
    ];
    for (const err of other) expect(isThreadStoreUnavailable(err), String(err)).toBe(false);
  });
});
