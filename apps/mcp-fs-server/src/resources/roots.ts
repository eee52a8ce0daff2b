import { closeSync, readFileSync } from "node:fs";
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from "@modelcontextprotocol/server";
import { ROOT } from "@textide/shared";
import { SKIPPED_DIRS, entryPath, isFsError, type PathPolicy, type Root, walk } from "@textide/shared/node";
import { isKnownBinaryMime, mimeOf } from "../fs/mime.js";
import { detectEncoding } from "../fs/text-decode.js";
import { REPLY_BUDGET_BYTES, jsonStringBytes } from "../tools/reply-budget.js";

const MAX_RESOURCE_BYTES = 1024 * 1024;
const MAX_LISTED = 1000;
const SCHEME = "textide:";

/** `textide://project_root/data/planets.xlsx` ⇄ workspace path `data/planets.xlsx`. */
export function resourceUri(root: Root, relPath: string): string {
  return `textide://${root.name}/${relPath.split("/").map(encodeURIComponent).join("/")}`;
}

/** Both roots as resources (reading one lists it) plus a template for every file under them. */
export function registerRootResources(server: McpServer, policy: PathPolicy): void {
  for (const root of policy.roots) {
    server.registerResource(
      root.name,
      `textide://${root.name}/`,
      {
        title: root.name === ROOT.project ? "Project files" : "Generated assets",
        description: `The ${root.name} root: reading it returns a JSON list of its files (first ${MAX_LISTED}).`,
        mimeType: "application/json",
      },
      async (uri) => {
        const files = await listFiles(root);
        return {
          contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(files.map((f) => f.rel)) }],
        };
      },
    );
  }

  server.registerResource(
    "workspace-file",
    new ResourceTemplate("textide://{root}/{+path}", {
      list: async () => {
        const resources = [];
        for (const root of policy.roots) {
          for (const f of await listFiles(root)) {
            resources.push({ uri: resourceUri(root, f.rel), name: f.rel, mimeType: mimeOf(f.rel) });
            if (resources.length >= MAX_LISTED) return { resources };
          }
        }
        return { resources };
      },
    }),
    {
      title: "Workspace file",
      description: "A file under project_root or generated_assets (up to 1 MB; use fs_read_file to page larger files).",
    },
    async (uri, vars) => readResource(policy, uri, vars),
  );
}

async function listFiles(root: Root): Promise<{ rel: string }[]> {
  const out: { rel: string }[] = [];
  // Ordered: the list stops at MAX_LISTED, and must not depend on which directory read finished first.
  const opts = { rootReal: root.real, skipDirs: SKIPPED_DIRS, ordered: true };
  await walk(root.real, opts, (e) => {
    if (e.type === "file" || e.targetType === "file")
      out.push({
        rel: entryPath(e)
          .slice(root.real.length + 1)
          .split("\\")
          .join("/"),
      });
    return out.length < MAX_LISTED;
  });
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

async function readResource(
  policy: PathPolicy,
  uri: URL,
  vars: Record<string, string | string[]>,
): Promise<ReadResourceResult> {
  const rootName = String(vars.root);
  const rel = decodeURIComponent(String(vars.path ?? ""));
  if (uri.protocol !== SCHEME || !policy.roots.some((r) => r.name === rootName)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource root in ${uri.href}`);
  }
  try {
    // Read through the descriptor the policy opened and checked, never by path again.
    const file = await policy.openExisting(rootName === ROOT.project ? rel : `${rootName}/${rel}`);
    let bytes: Buffer;
    try {
      if (!file.stats.isFile())
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${file.display} is not a file`);
      if (file.stats.size > BigInt(MAX_RESOURCE_BYTES)) throw tooLarge(file.display);
      bytes = readFileSync(file.fd);
    } finally {
      closeSync(file.fd);
    }
    const mimeType = mimeOf(file.abs);
    const binary = isKnownBinaryMime(mimeType) || detectEncoding(bytes.subarray(0, 65536)).kind === "binary";
    // One message must fit every client (reply-budget.ts): base64 and JSON escapes grow the bytes.
    const budget = REPLY_BUDGET_BYTES - 4096;
    if (binary) {
      const blob = bytes.toString("base64");
      if (blob.length > budget) throw tooLarge(file.display);
      return { contents: [{ uri: uri.href, mimeType, blob }] };
    }
    const text = new TextDecoder().decode(bytes);
    if (jsonStringBytes(text) > budget) throw tooLarge(file.display);
    return { contents: [{ uri: uri.href, mimeType, text }] };
  } catch (err) {
    if (isFsError(err)) {
      if (err.code === "not_found") throw new ResourceNotFoundError(uri.href);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
    }
    throw err;
  }
}

function tooLarge(display: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${display} is too large to send as one resource (at most about 700 KB of binary or 1 MB of text); read it with fs_read_file in pages.`,
  );
}
