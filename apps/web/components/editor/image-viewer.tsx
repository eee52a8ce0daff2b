"use client";

import { useState, type ReactNode } from "react";
import { rawUrl } from "@/lib/api";

const STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8];

/** Images straight from `/api/raw`, with zoom; `version` busts the cache when the file changes. */
export function ImageViewer({ path, version }: { path: string; version: number }): ReactNode {
  const [zoom, setZoom] = useState<number | "fit">("fit");
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
          src={rawUrl(path, version)}
          alt={path}
          className={zoom === "fit" ? "fit" : undefined}
          style={zoom === "fit" ? undefined : { zoom }}
        />
      </div>
    </div>
  );
}
