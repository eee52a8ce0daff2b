import { capabilities, findDone } from "../answers.js";
import { searchMatches } from "../results.js";
import { stems } from "../text.js";
import { WIRE } from "../types.js";
import { answer, call, missingTool, ok, stepsOf, type Flow } from "./context.js";
import { dedupe } from "./steps.js";
import { failureText } from "../results.js";

/* Find: files by name, by type, or by the text inside them (names first, then contents). */

export const findFlow: Flow = (ctx) => {
  const { intent } = ctx;
  if (!ctx.has(WIRE.search)) return missingTool(WIRE.search);
  const target = intent.find ?? {};
  const searches = stepsOf(ctx, "search");
  const name = target.name?.trim() ?? "";
  const nameQuery = (): string | undefined => {
    if (!name) return undefined;
    if (/[*?[\]{}./]/.test(name)) return name;
    const ws = stems(name).filter((w) => w.length >= 2);
    if (ws.length === 0) return undefined;
    return ws.length === 1 ? ws[0] : `*${ws.join("*")}*`;
  };
  if (searches.length === 0) {
    if (target.content) return call(WIRE.search, { content: target.content });
    if (target.glob && !name) return call(WIRE.search, { query: target.glob });
    const q = nameQuery();
    if (!q)
      return answer(capabilities('What should be found? e.g. "find files about moons" or "files containing Jupiter".'));
    return call(WIRE.search, { query: q });
  }
  const last = searches[searches.length - 1]!;
  if (!ok(last)) return answer(`The search failed: ${failureText(last)}`);
  let all = dedupe(searches.flatMap(searchMatches));
  if (target.glob && name) {
    // A name search kept to a type: "the planets spreadsheet" → tables whose name has "planet".
    const exts = /\{(.*)\}|\*\.(\w+)$/.exec(target.glob);
    const allowed = (exts?.[1] ?? exts?.[2] ?? "").split(",").filter(Boolean);
    all = all.filter((m) => m.type !== "directory" && allowed.some((e) => m.path.toLowerCase().endsWith(`.${e}`)));
  }
  if (all.length === 0 && searches.length === 1 && name && !target.content) {
    // Nothing is named like that: look inside files instead.
    return call(WIRE.search, { content: name });
  }
  const what = target.content
    ? `text "${target.content}"`
    : target.glob
      ? name
        ? `"${name}" in names of \`${target.glob}\` files`
        : `\`${target.glob}\``
      : searches.length > 1
        ? `"${name}" (in file contents; no file names match)`
        : `"${name}" in file names`;
  return answer(findDone(what, all));
};
