import { isRecord } from "@textide/shared";
import type { Step } from "./types.js";
import { str } from "./text.js";

/*
 * Readers for the bundled tools' results. The structured content is preferred; when an adapter
 * dropped it, the text the server writes for models is parsed instead.
 */

export interface FoundEntry {
  path: string;
  type: "file" | "directory" | "symlink" | "other";
  root?: string;
  lines?: { line: number; text: string }[];
}

/** Matches of an fs_search_files result. */
export function searchMatches(step: Step | undefined): FoundEntry[] {
  const r = step?.result;
  if (!r || !r.ok) return [];
  const matches = r.structured?.matches;
  if (Array.isArray(matches)) {
    return matches.filter(isRecord).flatMap((m) => {
      if (typeof m.path !== "string") return [];
      const type = m.type === "directory" || m.type === "symlink" || m.type === "other" ? m.type : "file";
      const lines = Array.isArray(m.lines)
        ? m.lines.filter(isRecord).map((l) => ({ line: Number(l.line), text: String(l.text) }))
        : undefined;
      return [
        { path: m.path, type, ...(typeof m.root === "string" ? { root: m.root } : {}), ...(lines ? { lines } : {}) },
      ];
    });
  }
  // Text form: a header line, then one path per line ("dir/" for folders), matching lines indented.
  const out: FoundEntry[] = [];
  for (const line of r.text.split("\n").slice(1)) {
    if (line.trim() === "") continue;
    if (/^\s/.test(line)) {
      const m = /^\s+(\d+): (.*)$/.exec(line);
      const last = out[out.length - 1];
      if (m && last) (last.lines ??= []).push({ line: Number(m[1]), text: m[2]! });
      continue;
    }
    out.push(line.endsWith("/") ? { path: line.slice(0, -1), type: "directory" } : { path: line, type: "file" });
  }
  return out;
}

export interface ListedEntry {
  name: string;
  path: string;
  type: string;
  size?: number;
}

/** Entries of an fs_list_directory result. */
export function listEntries(step: Step | undefined): { path: string; entries: ListedEntry[]; truncated: boolean } {
  const s = step?.result?.structured;
  if (s && Array.isArray(s.entries)) {
    return {
      path: typeof s.path === "string" ? s.path : ".",
      truncated: s.truncated === true,
      entries: s.entries.filter(isRecord).map((e) => ({
        name: str(e.name),
        path: str(e.path),
        type: str(e.type, "file"),
        ...(typeof e.size === "number" ? { size: e.size } : {}),
      })),
    };
  }
  const lines = (step?.result?.text ?? "").split("\n");
  const entries = lines.slice(1).flatMap((l): ListedEntry[] => {
    const t = l.trim();
    if (!t) return [];
    if (t.endsWith("/")) return [{ name: t.slice(0, -1).split("/").pop()!, path: t.slice(0, -1), type: "directory" }];
    const path = t.replace(/\s+\(.*\)$|\s+\[.*\]$/, "");
    return [{ name: path.split("/").pop()!, path, type: "file" }];
  });
  return { path: str(step?.args.path, "."), truncated: /truncated/.test(lines[0] ?? ""), entries };
}

export interface ExecOutcome {
  ok: boolean;
  result?: unknown;
  outputs: { path: string; bytes: number; mime?: string }[];
  error?: { kind: string; message: string; line?: number };
}

/** The outcome of an exec_run_js call. */
export function execOutcome(step: Step | undefined): ExecOutcome | undefined {
  const r = step?.result;
  if (!r) return undefined;
  const s = r.structured;
  if (s && typeof s.ok === "boolean") {
    const outputs = Array.isArray(s.outputs)
      ? s.outputs.filter(isRecord).map((o) => ({
          path: String(o.path),
          bytes: Number(o.bytes ?? 0),
          ...(typeof o.mime === "string" ? { mime: o.mime } : {}),
        }))
      : [];
    const e = isRecord(s.error) ? s.error : undefined;
    return {
      ok: s.ok && r.ok,
      ...("result" in s ? { result: s.result } : {}),
      outputs,
      ...(e
        ? {
            error: {
              kind: str(e.kind, "runtime"),
              message: str(e.message),
              ...(typeof e.line === "number" ? { line: e.line } : {}),
            },
          }
        : {}),
    };
  }
  // Text form: "Result: <json>", "Files written:\n- path (size)", or "<kind> error at line N: message".
  const text = r.text;
  const outputs = [...text.matchAll(/^- (\S.*?) \([^)]*\)$/gm)].map((m) => ({ path: m[1]!, bytes: 0 }));
  const res = /^Result: (.*)$/m.exec(text);
  let result: unknown;
  if (res) {
    try {
      result = JSON.parse(res[1]!);
    } catch {
      result = undefined;
    }
  }
  const err = /^(\w+) error(?: at line (\d+))?: (.*)$/m.exec(text);
  return {
    ok: r.ok && !err,
    ...(result !== undefined ? { result } : {}),
    outputs,
    ...(err || !r.ok
      ? {
          error: {
            kind: err?.[1] ?? "runtime",
            message: err?.[3] ?? text.slice(0, 500),
            ...(err?.[2] ? { line: Number(err[2]) } : {}),
          },
        }
      : {}),
  };
}

/** A failed step's message, for an answer. */
export function failureText(step: Step): string {
  const exec = step.tool === "exec_run_js" ? execOutcome(step) : undefined;
  if (exec?.error)
    return `${exec.error.kind} error${exec.error.line ? ` at line ${exec.error.line}` : ""}: ${exec.error.message}`;
  return (step.result?.text ?? "no result").split("\n").slice(0, 6).join("\n");
}
