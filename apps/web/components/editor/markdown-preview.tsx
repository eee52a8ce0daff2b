"use client";

import type { ReactNode } from "react";
import Markdown, { type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { rawUrl } from "@/lib/api";
import { resolveWorkspaceLink } from "@/lib/workspace-path";

export interface MarkdownPreviewProps {
  path: string;
  source: string;
  onOpen: (path: string) => void;
}

/**
 * GitHub-flavoured Markdown, rendered as React elements: raw HTML in the file is dropped (`skipHtml`),
 * the tree is sanitized with GitHub's schema, and unsafe URL schemes are removed by react-markdown.
 * Relative links open the workspace file in the IDE; relative images load from /api/raw; remote images
 * are not fetched (shown as links) so that opening a file never calls out to the network.
 */
export function MarkdownPreview({ path, source, onOpen }: MarkdownPreviewProps): ReactNode {
  const components: Components = {
    a({ href, children }) {
      const target = href ? resolveWorkspaceLink(href, path) : undefined;
      if (target)
        return (
          <a
            href={`#${encodeURIComponent(target)}`}
            className="workspace-link"
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
    <div className="markdown-body">
      <Markdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]} skipHtml components={components}>
        {source}
      </Markdown>
    </div>
  );
}
