import ivm from "isolated-vm";
import type { PathPolicy } from "@textide/shared/node";
import { ExecError } from "./errors.js";
import { HostApi } from "./host-api.js";
import { EXEC_LIMITS } from "./limits.js";
import type { RunOutcome, RunRequest } from "./protocol.js";

const USER_FILE = "user-code.js";
const RESULT_TOO_LARGE = "TEXTIDE_RESULT_TOO_LARGE";

/**
 * Runs inside the isolate before user code: takes the host callbacks off the global object, wraps
 * them with intrinsics captured now (so later tampering with Object/JSON/Array cannot reach them),
 * installs the API as non-writable, non-configurable globals, and removes what sandboxed
 * analysis code never needs (WebAssembly, SharedArrayBuffer, Atomics).
 */
const BOOTSTRAP = `"use strict";
(() => {
  const g = globalThis;
  const define = Object.defineProperty, freeze = Object.freeze, stringify = JSON.stringify, StringCtor = String;
  const apply = Reflect.apply, isArray = Array.isArray, map = Array.prototype.map, join = Array.prototype.join;
  const take = (k) => { const v = g[k]; delete g[k]; return v; };
  const refs = {
    readTable: take("__h_readTable"), sheets: take("__h_sheets"), readText: take("__h_readText"), listFiles: take("__h_listFiles"),
    writeFile: take("__h_writeFile"), chart: take("__h_chart"),
  };
  const log = take("__h_log");
  // Null-prototype option objects: a polluted Object.prototype must not turn copies into references.
  const OPTS = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }) });
  const syncPromise = refs.readTable.applySyncPromise;
  const ErrorCtor = Error;
  // Rethrown here so the error's stack points at the user's line that made the call.
  const call = (ref, args) => {
    try { return apply(syncPromise, ref, [undefined, args, OPTS]); }
    catch (e) { throw new ErrorCtor(e && typeof e.message === "string" ? e.message : StringCtor(e)); }
  };
  for (const k of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete g[k];
  const fmt = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack || StringCtor(v);
    try { const s = stringify(v); return s === undefined ? StringCtor(v) : s; } catch { return StringCtor(v); }
  };
  // Host calls block this isolate until the host finishes, so the API works with or without await.
  const api = {
    readTable: (path, options) => call(refs.readTable, [path, options]),
    sheets: (path) => call(refs.sheets, [path]),
    readText: (path) => call(refs.readText, [path]),
    listFiles: (dir) => call(refs.listFiles, [dir]),
    writeFile: (name, content) => call(refs.writeFile, [name, content]),
    chart: (spec, name, options) => call(refs.chart, [spec, name, options]),
  };
  for (const k of ["readTable", "sheets", "readText", "listFiles", "writeFile", "chart"]) {
    define(g, k, { value: freeze(api[k]), writable: false, configurable: false, enumerable: false });
  }
  const logAt = (level) => freeze((...args) => { log(level, apply(join, apply(map, args, [fmt]), [" "])); });
  const cons = freeze({ log: logAt("log"), info: logAt("info"), warn: logAt("warn"), error: logAt("error"), debug: logAt("debug"), table: logAt("table") });
  define(g, "console", { value: cons, writable: false, configurable: false, enumerable: false });
  define(g, "__textide_finish", {
    value: freeze((v) => {
      if (v === undefined) return undefined;
      const s = stringify(v);
      if (s !== undefined && s.length > ${EXEC_LIMITS.maxResultBytes}) throw new Error("${RESULT_TOO_LARGE}: " + s.length);
      return s;
    }),
    writable: false, configurable: false, enumerable: false,
  });
})();`;

/** Captured console output with a byte cap. */
class LogBuffer {
  text = "";
  truncated = false;
  add(level: string, line: string): void {
    if (this.truncated) return;
    const entry = `${level === "log" ? "" : `[${level}] `}${line}\n`;
    if (Buffer.byteLength(this.text) + Buffer.byteLength(entry) > EXEC_LIMITS.maxLogBytes) {
      this.text += entry.slice(0, Math.max(0, EXEC_LIMITS.maxLogBytes - Buffer.byteLength(this.text)));
      this.truncated = true;
      return;
    }
    this.text += entry;
  }
}

/** Runs one request in a fresh isolate and context. `recycle` asks for a fresh runner process. */
export async function runInIsolate(
  req: RunRequest,
  policy: PathPolicy,
  onCatastrophic: (message: string) => void,
  onRender?: (chart: string) => void,
): Promise<{ outcome: RunOutcome; recycle: boolean }> {
  const started = performance.now();
  const deadline = Date.now() + req.timeoutMs;
  const logs = new LogBuffer();
  const host = new HostApi(policy, deadline, (level, line) => logs.add(level, line), onRender);
  const isolate = new ivm.Isolate({ memoryLimit: req.memoryMb, onCatastrophicError: onCatastrophic });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  let resultJson: string | undefined;
  let error: RunOutcome["error"];
  let isolateMs = 0;

  try {
    const context = await isolate.createContext();
    const jail = context.global;
    // References to host functions stay inside the bootstrap's closure; user code never sees them.
    // Results cross as copies (ExternalCopy.copyInto): never a reference to a host object.
    const ref = (fn: (...a: never[]) => Promise<unknown>) =>
      new ivm.Reference(async (...a: never[]) => new ivm.ExternalCopy(await fn(...a)).copyInto({ release: true }));
    await jail.set("__h_readTable", ref(host.guard("readTable", (p: unknown, o: unknown) => host.readTable(p, o))));
    await jail.set("__h_sheets", ref(host.guard("sheets", (p: unknown) => host.sheets(p))));
    await jail.set("__h_readText", ref(host.guard("readText", (p: unknown) => host.readText(p))));
    await jail.set("__h_listFiles", ref(host.guard("listFiles", (d: unknown) => host.listFiles(d))));
    await jail.set("__h_writeFile", ref(host.guard("writeFile", (n: unknown, c: unknown) => host.writeFile(n, c))));
    await jail.set("__h_chart", ref(host.guard("chart", (s: unknown, n: unknown, o: unknown) => host.chart(s, n, o))));
    await jail.set(
      "__h_log",
      new ivm.Callback((level: string, line: string) => logs.add(String(level), String(line)), { sync: true }),
    );
    await context.eval(BOOTSTRAP, { timeout: 1000 });

    let script: ivm.Script;
    try {
      script = await isolate.compileScript(
        `(async function () { return __textide_finish(await (async function () {\n${req.code}\n})()); })`,
        { filename: USER_FILE, lineOffset: -1 },
      );
    } catch (err) {
      throw new ExecError("syntax", `${(err as Error).message}`, { cause: err });
    }
    const fn = (await script.run(context, { reference: true, timeout: req.timeoutMs })) as ivm.Reference<
      () => Promise<string | undefined>
    >;
    const isolateStart = performance.now();
    const remaining = Math.max(1, deadline - Date.now());
    const call = fn.apply(undefined, [], { timeout: remaining, result: { promise: true, copy: true } });
    // The isolate's timeout stops at host calls; this wall-clock deadline covers the whole run.
    const wall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        isolate.dispose();
        reject(new ExecError("timeout", `Time limit of ${req.timeoutMs} ms reached.`));
      }, remaining);
    });
    try {
      const raced: unknown = await Promise.race([call, wall]);
      resultJson = typeof raced === "string" ? raced : undefined;
    } finally {
      isolateMs = performance.now() - isolateStart - host.hostMs;
    }
  } catch (err) {
    error = classify(err, {
      timedOut,
      disposed: isolate.isDisposed,
      host,
      timeoutMs: req.timeoutMs,
      memoryMb: req.memoryMb,
    });
  } finally {
    if (timer) clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }

  const outcome: RunOutcome = {
    ok: error === undefined,
    ...(resultJson !== undefined ? { resultJson } : {}),
    logs: logs.text,
    logsTruncated: logs.truncated,
    outputs: host.outputs,
    ...(error ? { error } : {}),
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    timings: { isolateMs: Math.max(0, Math.round(isolateMs * 100) / 100), hostMs: Math.round(host.hostMs * 100) / 100 },
  };
  return { outcome, recycle: error?.kind === "memory" };
}

function classify(
  err: unknown,
  s: { timedOut: boolean; disposed: boolean; host: HostApi; timeoutMs: number; memoryMb: number },
): NonNullable<RunOutcome["error"]> {
  const message = err instanceof Error ? err.message : String(err);
  const line = userLine(err);
  const withLine = <T extends object>(e: T) => (line !== undefined ? { ...e, line } : e);
  if (s.timedOut || /Script execution timed out/i.test(message)) {
    return withLine({
      kind: "timeout" as const,
      message: `Time limit of ${s.timeoutMs} ms reached. Make the code faster, or process less data, or raise timeoutMs (max ${EXEC_LIMITS.maxTimeoutMs}).`,
    });
  }
  if (err instanceof ExecError) return withLine({ kind: err.kind, message: err.message });
  if (/memory limit|Array buffer allocation failed|allocation failed/i.test(message) || (s.disposed && !s.timedOut)) {
    return {
      kind: "memory",
      message: `Memory limit of ${s.memoryMb} MB exceeded. Work on fewer rows or columns at a time, or raise memoryMb (max ${EXEC_LIMITS.maxMemoryMb}).`,
    };
  }
  if (message.startsWith(RESULT_TOO_LARGE)) {
    return {
      kind: "limit",
      message: `The return value is larger than ${EXEC_LIMITS.maxResultBytes / 1024} KB as JSON. Return a summary (counts, top rows) and write full data with writeFile.`,
    };
  }
  const hostErr = s.host.lastError;
  if (hostErr && message.includes(hostErr.message)) return withLine({ kind: hostErr.kind, message: hostErr.message });
  const name = err instanceof Error && err.name !== "Error" ? `${err.name}: ` : "";
  return withLine({ kind: "runtime", message: `${name}${message}` });
}

/** The first `user-code.js:LINE` in an error's stack or message. */
function userLine(err: unknown): number | undefined {
  const text = err instanceof Error ? `${err.stack ?? ""}\n${err.message}` : String(err);
  const m = new RegExp(`${USER_FILE.replace(".", "\\.")}:(\\d+)`).exec(text);
  return m ? Number(m[1]) : undefined;
}
