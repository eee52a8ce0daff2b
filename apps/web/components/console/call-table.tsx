"use client";

import { useEffect, useLayoutEffect, useRef, type ReactNode } from "react";
import type { McpCallEvent } from "@textide/shared";
import { argsText, formatDuration, formatTime } from "@/lib/mcp-calls";
import styles from "./console.module.css";

/** How close to the bottom (px) still counts as "following" the log. */
const FOLLOW_SLACK = 24;

/** The calls, newest at the bottom; follows new rows while scrolled to the bottom. */
export function CallTable({ calls }: { calls: readonly McpCallEvent[] }): ReactNode {
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = (): void => {
      following.current = el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [calls]);

  return (
    <div ref={scroller} className={styles.scroller}>
      <table className={styles.table} aria-label="MCP calls">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Source</th>
            <th scope="col">Tool</th>
            <th scope="col" className={styles.num}>
              Duration
            </th>
            <th scope="col">Status</th>
            <th scope="col">Arguments</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => {
            const args = argsText(c.args);
            return (
              <tr key={c.id} className={c.status === "ok" ? undefined : styles.errorRow} data-status={c.status}>
                <td className={styles.mono} title={c.at}>
                  {formatTime(c.at)}
                </td>
                <td>
                  <span className={c.source === "agent" ? styles.agent : styles.external}>{c.source}</span>
                </td>
                <td className={styles.mono}>{c.tool}</td>
                <td className={`${styles.mono} ${styles.num}`}>{formatDuration(c.durationMs)}</td>
                <td className={styles.mono}>{c.status}</td>
                <td className={`${styles.mono} ${styles.args}`} title={args}>
                  {args}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
