import { notFound } from "../answers.js";
import { nameScore } from "../match.js";
import { searchMatches } from "../results.js";
import { stems, str, words } from "../text.js";
import { WIRE } from "../types.js";
import { ASSET_WORDS, ROOT_WORDS } from "../vocabulary.js";
import { answer, call, ok, stepsOf, type Flow } from "./context.js";
import { previewFlow } from "./preview.js";
import { dedupe, listPath } from "./steps.js";

/* List: a folder named in the request (found by search when it is not a path), or the workspace. */

export const listFlow: Flow = (ctx) => {
  const { intent } = ctx;
  const lists = stepsOf(ctx, "list");
  const searches = stepsOf(ctx, "search");
  const folder = intent.folderWords.join(" ").trim();
  if (lists.length > 0) {
    const last = lists[lists.length - 1]!;
    if (!ok(last) && searches.length === 0 && (folder || intent.explicitDir) && ctx.has(WIRE.search)) {
      return call(WIRE.search, { query: (intent.explicitDir ?? folder).split("/").filter(Boolean).pop()! });
    }
    return listPath(ctx, str(last.args.path, "."));
  }
  if (searches.length === 0) {
    if (intent.explicitDir) return listPath(ctx, intent.explicitDir);
    if (!folder || ROOT_WORDS.has(folder)) return listPath(ctx, ".");
    if (ASSET_WORDS.has(folder)) return listPath(ctx, "generated_assets");
    if (!ctx.has(WIRE.search)) return listPath(ctx, folder);
    return call(WIRE.search, { query: folder.includes(" ") ? `*${words(folder).join("*")}*` : folder });
  }
  const matches = dedupe(searches.flatMap(searchMatches));
  const wanted = (intent.explicitDir ?? folder).toLowerCase().split("/").filter(Boolean).pop() ?? "";
  const dirs = matches
    .filter((m) => m.type === "directory")
    .map((m) => ({
      m,
      s:
        (m.path.toLowerCase().split("/").pop() === wanted ? 2 : 0) +
        nameScore(m.path, stems(wanted)) -
        m.path.length / 1000,
    }))
    .sort((a, b) => b.s - a.s);
  if (dirs[0]) return listPath(ctx, dirs[0].m.path);
  if (matches.some((m) => m.type !== "directory")) return previewFlow(ctx);
  return answer(notFound(`a folder named "${folder || intent.explicitDir}"`));
};
