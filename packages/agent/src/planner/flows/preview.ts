import { capabilities, notFound, previewTableDone, previewTextDone } from "../answers.js";
import { previewCode } from "../code/tables.js";
import { execOutcome, failureText, searchMatches } from "../results.js";
import { isTablePath } from "../table.js";
import { WIRE } from "../types.js";
import { answer, call, EXEC_TIMEOUT_MS, missingTool, ok, stepsOf, type Flow } from "./context.js";
import { dedupe, listPath, notFoundStep, rankCandidates, sameFile, termsGlob, type Candidate } from "./steps.js";

/* Preview and open: the named or best-named file, as a table's first rows or a text's first lines. */

const PREVIEW_ROWS = 10;
const PREVIEW_LINES = 40;

export const previewFlow: Flow = (ctx) => {
  const { intent } = ctx;
  if (!ctx.has(WIRE.search)) return missingTool(WIRE.search);
  const searches = stepsOf(ctx, "search");
  if (searches.length === 0) {
    if (intent.explicitFile) return call(WIRE.search, { query: intent.explicitFile });
    const glob = termsGlob(intent.terms);
    if (!glob)
      return answer(
        capabilities('Which file? Name it (e.g. "open notes/ideas.md") or describe it with words from its name.'),
      );
    return call(WIRE.search, { query: glob });
  }
  const matches = dedupe(searches.flatMap(searchMatches));
  let target: Candidate | undefined;
  if (intent.explicitFile) {
    const wanted = intent.explicitFile;
    const hits = matches.filter((m) => sameFile(m.path, wanted));
    if (hits.length === 0) return notFoundStep(ctx, wanted, matches);
    target = rankCandidates(ctx, hits)[0];
  } else {
    // Most of the request's words must be in the name: "secret plans" does not mean planets.xlsx.
    const needed = Math.max(0.6, 0.5 * intent.terms.length);
    const ranked = rankCandidates(ctx, matches).filter((c) => c.score >= needed);
    // At equal scores a file beats a folder: "preview daily temps" means the file.
    target = ranked.sort(
      (a, b) => b.score - a.score || Number(a.type === "directory") - Number(b.type === "directory"),
    )[0];
    if (!target) return answer(notFound(`"${intent.terms.join(" ")}"`));
  }
  const path = target!.path;
  if (target!.type === "directory") return listPath(ctx, path);

  const asTable = isTablePath(path) && ctx.has(WIRE.exec);
  const previews = stepsOf(ctx, "preview");
  const reads = stepsOf(ctx, "read");
  if (asTable && previews.length === 0) {
    return call(
      WIRE.exec,
      { code: previewCode(path, intent.limit ?? PREVIEW_ROWS, intent.sheet), timeoutMs: EXEC_TIMEOUT_MS },
      { step: "preview", file: path },
    );
  }
  const tableOk = asTable && ok(previews[previews.length - 1]);
  if (!tableOk && reads.length === 0) {
    if (!ctx.has(WIRE.read)) return missingTool(WIRE.read);
    return call(WIRE.read, { path, maxBytes: 64 * 1024 });
  }
  if (intent.openInIde && ctx.has(WIRE.open) && stepsOf(ctx, "open").length === 0) {
    return call(WIRE.open, { path });
  }
  const opened = stepsOf(ctx, "open").some(ok) ? `\n\nOpened ${path} in the editor.` : "";
  if (tableOk) {
    const outcome = execOutcome(previews[previews.length - 1]);
    return answer(
      previewTableDone((outcome?.result ?? {}) as Record<string, unknown>, intent.limit ?? PREVIEW_ROWS) + opened,
    );
  }
  const read = reads[reads.length - 1]!;
  if (!ok(read)) return answer(`Could not read ${path}: ${failureText(read)}`);
  // Summarising prose needs a language model; say so and show the text instead.
  const lead =
    intent.kind === "describe"
      ? "The offline planner cannot summarise text (that needs a configured model); here is the beginning of the file.\n\n"
      : "";
  return answer(
    lead + previewTextDone(path, read.result!.text, read.result!.structured, intent.limit ?? PREVIEW_LINES) + opened,
  );
};
