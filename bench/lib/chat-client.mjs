// The chat client of the load and team suites: a socket.io window that asks the planets pie chart and
// checks the answer, as every open window of the IDE would receive it.
import { io } from "socket.io-client";
import { p50 } from "./stats.mjs";
import { now } from "./timing.mjs";

export const PROMPT = "pie chart of the largest planets from planets.xlsx";
export const CHART = "generated_assets/largest-planets-pie.png";

/** A websocket-only socket.io client; `localAddress` picks the source address (nginx hashes on it). */
export function connectSocket(base, localAddress) {
  const socket = io(base, { transports: ["websocket"], reconnection: false, forceNew: true, localAddress });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

/** One chat request on `socket`: resolves with its latency, or rejects with why it failed. */
export function chatRequest(socket, timeoutMs) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    let runId;
    const early = [];
    const finish = (err, ms) => {
      clearTimeout(timer);
      socket.off("agent/event", onEvent);
      if (err) reject(err);
      else resolve(ms);
    };
    const check = (e) => {
      if (e.runId !== runId) return;
      if (e.type === "error") finish(new Error(`error event ${e.code}: ${e.message}`));
      if (e.type !== "final") return;
      const ms = now() - t0;
      if (e.stopReason !== "done") finish(new Error(`stopReason ${e.stopReason}: ${e.text.slice(0, 200)}`));
      else if (!e.outputs.includes(CHART)) finish(new Error(`outputs ${JSON.stringify(e.outputs)}`));
      else if (!/Jupiter/.test(e.text)) finish(new Error(`answer without Jupiter: ${e.text.slice(0, 200)}`));
      else finish(undefined, ms);
    };
    // Events may arrive before the ack that names the run: keep them until then.
    const onEvent = (e) => (runId === undefined ? early.push(e) : check(e));
    socket.on("agent/event", onEvent);
    const timer = setTimeout(() => finish(new Error(`no final within ${timeoutMs} ms`)), timeoutMs);
    socket.emit("agent/run", { text: PROMPT }, (reply) => {
      if (!reply?.ok) return finish(new Error(`agent/run refused: ${JSON.stringify(reply?.error)}`));
      runId = reply.data.runId;
      for (const e of early.splice(0)) check(e);
    });
  });
}

/**
 * `rounds` rounds, each starting one request on every socket at once and waiting for all of them.
 * `onRound(index, latencies)` hears each round's completed requests (for a progress line).
 */
export async function chatRounds(sockets, rounds, timeoutMs, onRound) {
  const samples = [];
  const perRound = [];
  let completed = 0;
  let firstFailure;
  let wallMs = 0;
  for (let round = 0; round < rounds; round++) {
    const r0 = now();
    const results = await Promise.allSettled(sockets.map((s) => chatRequest(s, timeoutMs)));
    wallMs += now() - r0;
    const ok = results.filter((r) => r.status === "fulfilled").map((r) => r.value);
    firstFailure ??= results.find((r) => r.status === "rejected")?.reason?.message;
    samples.push(...ok);
    completed += ok.length;
    perRound.push({ p50: p50(ok), max: Math.max(...ok) });
    onRound(round, ok);
  }
  return { samples, perRound, completed, firstFailure, wallMs };
}
