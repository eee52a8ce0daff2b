"use client";

import { useState, type ReactNode } from "react";
import { rawUrl } from "@/lib/api";

const STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8];

/**
 * Images straight from `/api/raw`, with zoom. The URL is unique per mount and `version` (bumped when the
 * file changes): a browser reuses an image it already decoded for the same URL, whatever the cache headers
 * say, so a tab reopened on a re-rendered chart would otherwise show the old pixels.
 */
export function ImageViewer({ path, version }: { path: string; version: number }): ReactNode {
  const [zoom, setZoom] = useState<number | "fit">("fit");
  const [mount] = useState(() => Date.now().toString(36) + Math.random().toString(36).slice(2, 6));
  const current = zoom === "fit" ? 1 : zoom;
  const step = (dir: 1 | -1): void => {
    const i = STEPS.findIndex((s) => s >= current);
    const next = STEPS[Math.min(STEPS.length - 1, Math.max(0, (i < 0 ? STEPS.length - 1 : i) + dir))] ?? 1;
    setZoom(next);
  };
  return (
    <div className="viewer image-viewer">
      <div className="toolbar">
        <button type="button" onClick={() => step(-1)} aria-label="Zoom out">
          −
        </button>
        <span className="zoom-label">{zoom === "fit" ? "fit" : `${Math.round(zoom * 100)}%`}</span>
        <button type="button" onClick={() => step(1)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => setZoom(1)}>
          100%
        </button>
        <button type="button" onClick={() => setZoom("fit")}>
          Fit
        </button>
      </div>
      <div className="image-stage">
        <img
          src={rawUrl(path, `${mount}.${version}`)}
          alt={path}
          className={zoom === "fit" ? "fit" : undefined}
          style={zoom === "fit" ? undefined : { zoom }}
        />
      </div>
    </div>
  );
}
