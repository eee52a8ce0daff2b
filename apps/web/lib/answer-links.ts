/** Finding workspace paths in the agent's answer text, so that the chat can make them links. */

export type AnswerPart = { text: string } | { text: string; path: string };

/** Extensions a bare file name (no folder) must have to count as a path: avoids "e.g." and "v1.5". */
const FILE_EXT =
  "csv|tsv|xlsx|xls|json|md|markdown|txt|png|jpe?g|gif|svg|webp|pdf|html?|css|js|mjs|cjs|jsx|ts|tsx|py|sh|ya?ml|toml|xml|sql|log";

// A path with at least one folder (any extension), or a bare file name with a known extension. The
// look-behind keeps URLs (`https://host/a.png`) and parts of longer tokens out; the look-ahead refuses
// a match that is followed by more path characters.
const PATH = new RegExp(
  String.raw`(?<![\w/:.@~\\-])(?:\./)?((?:[\w@-][\w.@-]*/)+[\w@-][\w.@-]*\.[A-Za-z0-9]{1,10}|[\w@-][\w.@-]*\.(?:${FILE_EXT}))(?![\w/@-]|\.[\w])`,
  "gi",
);

/** Splits `text` into plain parts and workspace-path parts (in order; joined they give `text` back). */
export function splitAnswer(text: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let last = 0;
  for (const m of text.matchAll(PATH)) {
    const path = m[1]!;
    const start = m.index + m[0].length - path.length;
    if (path.split("/").some((seg) => seg === "..")) continue;
    if (start > last) parts.push({ text: text.slice(last, start) });
    parts.push({ text: path, path });
    last = start + path.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
