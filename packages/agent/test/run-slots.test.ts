import { describe, expect, it } from "vitest";
import { RunSlots } from "../src/run-slots.js";

describe("RunSlots", () => {
  it("lets `size` holders in at once and the rest in the order they asked", async () => {
    const slots = new RunSlots(2);
    const order: string[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    const c = slots.acquire().then((release) => (order.push("c"), release));
    const d = slots.acquire().then((release) => (order.push("d"), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    b();
    b(); // a second release of the same slot frees nothing more
    const releaseC = await c;
    expect(order).toEqual(["c"]);
    // A newcomer waits behind d even though a slot is released now.
    a();
    const e = slots.acquire().then((release) => (order.push("e"), release));
    (await d)();
    releaseC();
    await e;
    expect(order).toEqual(["c", "d", "e"]);
  });

  it("gives up a wait when its signal aborts, and the queue goes on without it", async () => {
    const slots = new RunSlots(1);
    const first = await slots.acquire();
    const controller = new AbortController();
    const cancelled = slots.acquire(controller.signal);
    const next = slots.acquire();
    controller.abort(new Error("stopped"));
    await expect(cancelled).rejects.toThrow("stopped");
    first();
    await expect(next).resolves.toBeTypeOf("function");
    await expect(slots.acquire(AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });
});
