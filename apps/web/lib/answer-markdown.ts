/**
 * A remark plugin for the agent's answers: workspace paths written as plain text (or as a whole inline code
 * span) become links, so that the Markdown renderer's link handling opens them in the IDE. Text inside
 * links, code blocks and HTML is left alone.
 */
import { splitAnswer } from "./answer-links";

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  children?: MdNode[];
}

const SKIP = new Set(["link", "linkReference", "code", "html", "definition"]);

/**
 * A found path is a workspace path, also in a Markdown file that was read (a tool result), where links
 * written as links resolve against the file: the leading slash makes it resolve from the root.
 */
const rooted = (path: string): string => `/${path}`;

function linkify(node: MdNode): void {
  if (!node.children || SKIP.has(node.type)) return;
  const out: MdNode[] = [];
  for (const child of node.children) {
    if (child.type === "text" && child.value) {
      for (const part of splitAnswer(child.value))
        out.push(
          "path" in part
            ? { type: "link", url: rooted(part.path), children: [{ type: "text", value: part.text }] }
            : { type: "text", value: part.text },
        );
    } else if (child.type === "inlineCode" && child.value) {
      const parts = splitAnswer(child.value.trim());
      const path = parts.length === 1 && parts[0] && "path" in parts[0] ? parts[0].path : undefined;
      out.push(path === undefined ? child : { type: "link", url: rooted(path), children: [child] });
    } else {
      linkify(child);
      out.push(child);
    }
  }
  node.children = out;
}

/** remark plugin: see the module comment. */
export function remarkWorkspacePaths() {
  return (tree: MdNode): void => linkify(tree);
}
