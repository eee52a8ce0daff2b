"use client";

import type { ReactNode } from "react";
import Markdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { rawUrl } from "@/lib/api";
import { remarkWorkspacePaths } from "@/lib/answer-markdown";
import { resolveWorkspaceLink } from "@/lib/workspace-path";

export interface MarkdownPreviewProps {
  /** The file the Markdown comes from (relative links resolve against it); "" for the workspace root. */
  path: string;
  source: string;
  onOpen: (path: string) => void;
  /** Also turn workspace paths written as plain text into links (the agent's answers). */
  linkPaths?: boolean;
  className?: string;
}

/**
 * GitHub-flavoured Markdown, rendered as React elements: raw HTML in the file is dropped (`skipHtml`),
 * the tree is sanitized with GitHub's schema, and unsafe URL schemes are removed by react-markdown.
 * Relative links open the workspace file in the IDE; relative images load from /api/raw; remote images
 * are not fetched (shown as links) so that opening a file never calls out to the network. Fenced code is
 * highlighted (highlight.js classes, added after sanitising). The chat renders answers with it too.
 */
export function MarkdownPreview({
  path,
  source,
  onOpen,
  linkPaths = false,
  className = "markdown-body",
}: MarkdownPreviewProps): ReactNode {
  const components: Components = {
    a({ href, children }) {
      const target = href ? resolveWorkspaceLink(href, path) : undefined;
      if (target)
        return (
          <a
            href={`#${encodeURIComponent(target)}`}
            className="workspace-link path-link"
            title={`Open ${target}`}
            data-path={target}
            onClick={(e) => {
              e.preventDefault();
              onOpen(target);
            }}
          >
            {children}
          </a>
        );
      return (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {children}
        </a>
      );
    },
    img({ src, alt }) {
      const link = typeof src === "string" ? src : "";
      const target = resolveWorkspaceLink(link, path);
      if (target) return <img src={rawUrl(target)} alt={alt ?? ""} loading="lazy" />;
      return (
        <a
          href={link}
          target="_blank"
          rel="noopener noreferrer"
          className="remote-image"
          title="Remote image (not loaded)"
        >
          🖼 {alt || link}
        </a>
      );
    },
  };
  return (
    <div className={className}>
      <Markdown
        remarkPlugins={linkPaths ? [remarkGfm, remarkWorkspacePaths] : [remarkGfm]}
        rehypePlugins={[rehypeSanitize, [rehypeHighlight, { detect: false }]]}
        skipHtml
        components={components}
      >
        {source}
      </Markdown>
    </div>
  );
}
