import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const SAMPLE_ROOT = path.join(REPO, "project_root");
export const SERVER_BIN = path.join(REPO, "apps/mcp-fs-server/dist/index.js");

export interface TmpWorkspace {
  base: string;
  project: string;
  assets: string;
  cleanup(): Promise<void>;
}

/**
 * A temp copy of the sample workspace plus an empty assets folder. `files` adds entries
 * (`"dir/": null` makes a directory). Tests never write into the repo's own roots.
 */
export async function makeWorkspace(
  files: Record<string, string | Buffer | null> = {},
  copySample = true,
): Promise<TmpWorkspace> {
  const base = await mkdtemp(path.join(os.tmpdir(), "textide-ws-"));
  const project = path.join(base, "project_root");
  const assets = path.join(base, "generated_assets");
  if (copySample) await cp(SAMPLE_ROOT, project, { recursive: true });
  else await mkdir(project);
  await mkdir(assets);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(project, rel);
    if (content === null) {
      await mkdir(abs, { recursive: true });
    } else {
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, content);
    }
  }
  return { base, project, assets, cleanup: () => rm(base, { recursive: true, force: true }) };
}
