import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The one font family charts are drawn with. resvg is run with `loadSystemFonts: false` (fast,
 * and the output does not depend on the machine), so without these files it would silently drop
 * every piece of text; the family is bundled as an npm package to make it always present.
 */
export const DEFAULT_FONT_FAMILY = "DejaVu Sans";

const FONT_FILE_NAMES = [
  "DejaVuSans.ttf",
  "DejaVuSans-Bold.ttf",
  "DejaVuSans-Oblique.ttf",
  "DejaVuSans-BoldOblique.ttf",
] as const;

let cached: string[] | undefined;

/** Absolute paths of the DejaVu Sans TTFs (regular, bold, oblique, bold-oblique). */
export function fontFiles(): string[] {
  if (cached) return [...cached];
  const require = createRequire(import.meta.url);
  // The package has no `main` or `exports`, so its package.json is the stable thing to resolve.
  const dir = path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
  const files = FONT_FILE_NAMES.map((name) => path.join(dir, name));
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new Error(`Chart fonts are missing (${missing.join(", ")}); reinstall the dejavu-fonts-ttf package.`);
  }
  cached = files;
  return [...files];
}
