"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { rawUrl } from "@/lib/api";
import { resolveWorkspaceLink } from "@/lib/workspace-path";

export interface VegaLiteChartProps {
  /** The spec's workspace path: relative data URLs resolve against its folder. */
  path: string;
  source: string;
  theme: "light" | "dark";
}

/** Strips options a spec could use to widen what the viewer does (`usermeta.embedOptions` overrides ours). */
function withoutEmbedOptions(spec: Record<string, unknown>): Record<string, unknown> {
  const usermeta = spec.usermeta;
  if (typeof usermeta !== "object" || usermeta === null || !("embedOptions" in usermeta)) return spec;
  const { embedOptions: _dropped, ...rest } = usermeta as Record<string, unknown>;
  return { ...spec, usermeta: rest };
}

/** Renders a Vega-Lite spec with vega-embed (loaded on first use): SVG, tooltips, PNG/SVG export. */
export default function VegaLiteChart({ path, source, theme }: VegaLiteChartProps): ReactNode {
  const hostRef = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    let disposed = false;
    let finalize: (() => void) | undefined;
    void (async () => {
      let spec: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(source);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
          throw new Error("a Vega-Lite spec is a JSON object");
        spec = withoutEmbedOptions(parsed as Record<string, unknown>);
      } catch (err) {
        setError(`Not a valid spec: ${(err as Error).message}. Fix it in Source.`);
        return;
      }
      try {
        const [{ default: embed, vega }, { expressionInterpreter }] = await Promise.all([
          import("vega-embed"),
          import("vega-interpreter"),
        ]);
        if (disposed) return;
        const loader = vega.loader();
        // Security: every URL in the spec (data, images, hrefs) must name a workspace file, served by
        // /api/raw under the path policy; nothing is fetched from anywhere else.
        loader.sanitize = (uri: string) => {
          const target = resolveWorkspaceLink(uri, path);
          if (!target) return Promise.reject(new Error(`${uri} is not a workspace file; only workspace paths load.`));
          return Promise.resolve({ href: rawUrl(target) });
        };
        const result = await embed(host, spec, {
          mode: "vega-lite",
          renderer: "svg",
          theme: theme === "dark" ? "dark" : undefined,
          tooltip: true,
          loader,
          // The interpreter evaluates expressions without `new Function`: specs may come from the agent.
          ast: true,
          expr: expressionInterpreter,
          actions: { export: { svg: true, png: true }, source: false, compiled: false, editor: false },
          downloadFileName: path.slice(path.lastIndexOf("/") + 1).replace(/(\.(vl|vega-lite))?\.json$/i, ""),
        });
        if (disposed) result.finalize();
        else {
          finalize = () => result.finalize();
          setError(undefined);
        }
      } catch (err) {
        if (!disposed) setError(`The chart could not be drawn: ${(err as Error).message}`);
      }
    })();
    return () => {
      disposed = true;
      finalize?.();
    };
  }, [path, source, theme]);

  return (
    <div className="vega-stage">
      {error ? <div className="viewer-note error">{error}</div> : null}
      <div ref={hostRef} className="vega-host" data-testid="vega-chart" hidden={error !== undefined} />
    </div>
  );
}
