import type { TreeEntry } from "./types";
import { isDirectory, isGenerated } from "./types";

export type ViewerKind = "image" | "table" | "workbook" | "markdown" | "json" | "code" | "binary";

const IMAGE = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "ico", "avif"]);
const BINARY = new Set(["pdf", "zip", "gz", "tar", "woff", "woff2", "ttf", "mp3", "mp4", "wasm"]);

const LANGUAGE: Record<string, string> = {
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  tsx: "typescript",
  json: "json",
  md: "markdown",
  css: "css",
  html: "html",
  py: "python",
  sh: "shell",
  yml: "yaml",
  yaml: "yaml",
  xml: "xml",
  svg: "xml",
  sql: "sql",
  csv: "plaintext",
  tsv: "plaintext",
};

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

export function viewerKind(path: string): ViewerKind {
  const ext = extensionOf(path);
  if (IMAGE.has(ext)) return "image";
  if (ext === "csv" || ext === "tsv") return "table";
  if (ext === "xlsx" || ext === "xls") return "workbook";
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "json") return "json";
  if (BINARY.has(ext)) return "binary";
  return "code";
}

export function languageOf(path: string): string {
  return LANGUAGE[extensionOf(path)] ?? "plaintext";
}

/** A one-character icon per entry type. */
export function iconOf(entry: TreeEntry, open: boolean): string {
  if (isDirectory(entry)) return entry.path === "generated_assets" ? "✦" : open ? "▾" : "▸";
  const ext = extensionOf(entry.path);
  if (IMAGE.has(ext)) return "◩";
  if (ext === "csv" || ext === "tsv" || ext === "xlsx" || ext === "xls") return "▦";
  if (ext === "md") return "¶";
  if (ext === "json") return "{}";
  if (["js", "mjs", "cjs", "ts", "tsx", "py", "sh"].includes(ext)) return "ƒ";
  return "·";
}

export { isGenerated };
