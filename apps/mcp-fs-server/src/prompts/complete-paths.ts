import { entryPath, SKIPPED_DIRS, walk, type PathPolicy } from "@textide/shared/node";

/** The most values one completion may carry (the MCP spec's cap). */
export const MAX_COMPLETIONS = 100;
/** Entries looked at per completion at most, so a huge tree cannot stall a keystroke. */
const MAX_SCANNED = 20_000;

export const TABLE_EXTENSIONS = [".csv", ".tsv", ".xlsx", ".json"] as const;

/**
 * Workspace paths of files for a prompt argument's completion: the two roots walked in a stable
 * order by the same walker as fs_search_files (through the roots' real paths, skipping `.git` and
 * `node_modules`), shown as tool paths (`data/planets.xlsx`, `generated_assets/chart.png`). Paths
 * that start with what was typed come first, then paths that contain it anywhere (case-insensitive).
 */
export async function completePaths(
  policy: PathPolicy,
  typed: string,
  accept: (path: string) => boolean = () => true,
): Promise<string[]> {
  const needle = typed.trim().toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  let scanned = 0;
  for (const root of policy.roots) {
    if (starts.length >= MAX_COMPLETIONS) break;
    await walk(root.real, { rootReal: root.real, skipDirs: SKIPPED_DIRS, ordered: true }, (e) => {
      if (++scanned > MAX_SCANNED) return false;
      if (e.type !== "file" && e.targetType !== "file") return;
      const shown = policy.display(root, entryPath(e));
      if (!accept(shown)) return;
      const lower = shown.toLowerCase();
      if (lower.startsWith(needle)) starts.push(shown);
      else if (contains.length < MAX_COMPLETIONS && lower.includes(needle)) contains.push(shown);
      if (starts.length >= MAX_COMPLETIONS) return false;
    });
  }
  return [...starts, ...contains].slice(0, MAX_COMPLETIONS);
}

export const isTable = (p: string): boolean => TABLE_EXTENSIONS.some((ext) => p.toLowerCase().endsWith(ext));
