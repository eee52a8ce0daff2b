import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerSpec } from "../../src/mcp/server-config.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const SERVER_BIN = path.join(REPO, "apps/mcp-fs-server/dist/index.js");

export interface Workspace {
  base: string;
  project: string;
  assets: string;
  /** The bundled MCP server over stdio on this workspace (the built binary, as the CLI runs it). */
  spec: ServerSpec;
  cleanup(): Promise<void>;
}

/** A temp copy of the sample workspace; tests never touch the repo's roots. */
export async function makeWorkspace(): Promise<Workspace> {
  const base = await mkdtemp(path.join(os.tmpdir(), "textide-agent-"));
  const project = path.join(base, "project_root");
  const assets = path.join(base, "generated_assets");
  await cp(path.join(REPO, "project_root"), project, { recursive: true });
  await mkdir(assets);
  const spec: ServerSpec = {
    command: process.execPath,
    args: [
      SERVER_BIN,
      "--root",
      project,
      "--assets",
      assets,
      "--audit-log",
      path.join(base, "audit.jsonl"),
      "--log-level",
      "warn",
    ],
  };
  return { base, project, assets, spec, cleanup: () => rm(base, { recursive: true, force: true }) };
}
