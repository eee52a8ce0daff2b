/**
 * Messages written for the model, turned into messages for the user. The file API and the MCP tools share
 * their errors, which end with advice on which tool to call next ("Use fs_list_directory on `.` …"), and
 * the agent answers a denied call with an instruction to the model; neither means anything to a user.
 */

/** The tool result the agent records for a call the user denied (packages/agent's graph). */
const REJECTED = /The user rejected this tool call\. Do not retry it; ask or do something else\./g;

/** Sentence text up to a full stop; a code span (`.`) may hold one. */
const PART = "(?:`[^`\\n]*`|[^.!?\\n`])*";
/** A sentence that names an MCP tool (`fs_…`, `exec_…`, `system_…`) or a sandbox helper (`listFiles()`). */
const TOOL_ADVICE = new RegExp(
  String.raw`\s*${PART}(?:\b(?:fs|exec|system)_[a-z_]+\b|\blistFiles\(\))${PART}[.!?]`,
  "g",
);

/** A denied call reads "You denied this step." (for answers, which may name tools on purpose). */
export function deniedForUser(text: string): string {
  return text.replace(REJECTED, "You denied this step.");
}

/** An error message without advice addressed to the model; a denied call reads "You denied this step." */
export function forUser(text: string): string {
  const cleaned = deniedForUser(text).replace(TOOL_ADVICE, "");
  return cleaned.trim() === "" ? text : cleaned;
}
