"use client";

import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";

// Loaded only in the browser (dynamic import): Monaco and its workers come from the local package, never a CDN.
// Each language service needs its own worker; the generic editor worker covers the rest.
function createWorker(label: string): Worker {
  const opts: WorkerOptions = { type: "module" };
  switch (label) {
    case "json":
      return new Worker(new URL("monaco-editor/language/json/json.worker.js", import.meta.url), opts);
    case "css":
    case "scss":
    case "less":
      return new Worker(new URL("monaco-editor/language/css/css.worker.js", import.meta.url), opts);
    case "html":
    case "handlebars":
    case "razor":
      return new Worker(new URL("monaco-editor/language/html/html.worker.js", import.meta.url), opts);
    case "typescript":
    case "javascript":
      return new Worker(new URL("monaco-editor/language/typescript/ts.worker.js", import.meta.url), opts);
    default:
      return new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url), opts);
  }
}

const env = globalThis as typeof globalThis & { MonacoEnvironment?: monaco.Environment };
env.MonacoEnvironment ??= { getWorker: (_workerId, label) => createWorker(label) };
loader.config({ monaco });

export { monaco };
