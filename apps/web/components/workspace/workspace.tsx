"use client";

import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { Group, Panel, Separator } from "react-resizable-panels";
import { ChatPanel } from "@/components/chat/chat-panel";
import { EditorPanel } from "@/components/console/editor-panel";
import { FileView } from "@/components/editor/file-view";
import { Explorer } from "@/components/explorer/explorer";
import { QuickOpen } from "@/components/palette/quick-open";
import { useConsoleToggle } from "@/hooks/use-console-toggle";
import { useFileTree } from "@/hooks/use-file-tree";
import { useBatchedSocketEvent, useSocketConnected, useSocketEvent } from "@/hooks/use-socket-event";
import { iconOf } from "@/lib/file-kind";
import { isAtOrBelow, movedPath } from "@/lib/paths";
import { baseName, isGenerated } from "@/lib/types";
import { UserBadge } from "./user-badge";

interface Tab {
  /** Stable across renames, so a renamed file's editor (and its unsaved edits) stays mounted. */
  id: number;
  path: string;
  version: number;
  line?: number;
}

type Theme = "light" | "dark";

function useTheme(): [Theme, () => void] {
  // The inline script in app/layout.tsx has set data-theme before the first paint (saved choice, else the
  // OS's); React starts from it instead of painting its own default first.
  const [theme, setTheme] = useState<Theme>();
  useEffect(() => {
    setTheme(document.documentElement.dataset.theme === "light" ? "light" : "dark");
  }, []);
  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = useCallback(() => {
    setTheme((t) => {
      const next = t === "dark" ? "light" : "dark";
      localStorage.setItem("textide-theme", next);
      return next;
    });
  }, []);
  return [theme ?? "dark", toggle];
}

let tabSeq = 0;

/** Where the open tabs are kept between reloads (per browser profile and origin). */
const TABS_KEY = "textide-tabs";

function savedTabs(): { paths: string[]; active?: string } {
  try {
    const v = JSON.parse(localStorage.getItem(TABS_KEY) ?? "null") as unknown;
    if (!v || typeof v !== "object") return { paths: [] };
    const { paths, active } = v as { paths?: unknown; active?: unknown };
    return {
      paths: Array.isArray(paths) ? paths.filter((p): p is string => typeof p === "string") : [],
      ...(typeof active === "string" ? { active } : {}),
    };
  } catch {
    return { paths: [] };
  }
}

/** The IDE: explorer | tabs with viewers | chat, in resizable panels, kept live by socket events. */
export function Workspace(): ReactNode {
  const tree = useFileTree();
  const connected = useSocketConnected();
  const [theme, toggleTheme] = useTheme();
  const [consoleOpen, toggleConsole] = useConsoleToggle();
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [active, setActive] = useState<string>();
  const [dirty, setDirty] = useState<ReadonlySet<string>>(new Set());
  const { reveal, applyChange, refresh } = tree;

  // Changes made while the socket was down sent no events: re-list the open folders and reload the
  // open files (a file with unsaved edits keeps them; a later save then reports the conflict).
  const everConnected = useRef(false);
  useEffect(() => {
    if (!connected) return;
    if (everConnected.current) {
      void refresh();
      setTabs((prev) => prev.map((t) => ({ ...t, version: t.version + 1 })));
    }
    everConnected.current = true;
  }, [connected, refresh]);

  // Team deployment: while this window's server cannot reach Redis, other servers' windows' work does not
  // show here; once it can again, what changed meanwhile is re-read as after a reconnect.
  const [clusterDown, setClusterDown] = useState(false);
  const clusterWasDown = useRef(false);
  useSocketEvent("server/status", (e) => {
    const down = e.cluster === "down";
    if (clusterWasDown.current && !down) {
      void refresh();
      setTabs((prev) => prev.map((t) => ({ ...t, version: t.version + 1 })));
    }
    clusterWasDown.current = down;
    setClusterDown(down);
  });

  const open = useCallback(
    (path: string, line?: number) => {
      setTabs((prev) => {
        const i = prev.findIndex((t) => t.path === path);
        if (i < 0) return [...prev, { id: ++tabSeq, path, version: 0, line }];
        if (line === undefined) return prev;
        return prev.map((t, j) => (j === i ? { ...t, line } : t));
      });
      setActive(path);
      void reveal(path);
    },
    [reveal],
  );

  const close = useCallback(
    (path: string) => {
      if (dirty.has(path) && !window.confirm(`${baseName(path)} has unsaved changes. Close anyway?`)) return;
      setTabs((prev) => {
        const i = prev.findIndex((t) => t.path === path);
        const next = prev.filter((t) => t.path !== path);
        setActive((a) => (a === path ? (next[Math.min(i, next.length - 1)]?.path ?? undefined) : a));
        return next;
      });
    },
    [dirty],
  );

  // The active tab is scrolled into view, however many tabs are open.
  const tabList = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = tabList.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
    el?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [active, tabs.length]);

  // Open tabs survive a reload; the restore runs once, before the first save of the list.
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current) return;
    const { paths, active: was } = savedTabs();
    restored.current = true;
    if (paths.length === 0) return;
    setTabs(paths.map((path) => ({ id: ++tabSeq, path, version: 0 })));
    const current = was !== undefined && paths.includes(was) ? was : paths[paths.length - 1];
    setActive(current);
    if (current !== undefined) void reveal(current);
  }, [reveal]);
  useEffect(() => {
    if (!restored.current) return;
    localStorage.setItem(TABS_KEY, JSON.stringify({ paths: tabs.map((t) => t.path), active }));
  }, [tabs, active]);

  // Unsaved edits are lost on reload or close: the browser asks first.
  const hasDirty = dirty.size > 0;
  useEffect(() => {
    if (!hasDirty) return;
    const warn = (e: BeforeUnloadEvent): void => {
      e.preventDefault();
      e.returnValue = ""; // older browsers need it set
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [hasDirty]);

  const onDirtyChange = useCallback((path: string, isDirty: boolean) => {
    setDirty((prev) => {
      if (prev.has(path) === isDirty) return prev;
      const next = new Set(prev);
      if (isDirty) next.add(path);
      else next.delete(path);
      return next;
    });
  }, []);

  // Tabs follow renames in the explorer and close when their file is deleted (unsaved edits go with it).
  const onRenamed = useCallback((from: string, to: string) => {
    setTabs((prev) => prev.map((t) => ({ ...t, path: movedPath(t.path, from, to) })));
    setActive((a) => (a === undefined ? a : movedPath(a, from, to)));
    setDirty((prev) => new Set([...prev].map((p) => movedPath(p, from, to))));
  }, []);
  const onDeleted = useCallback((path: string) => {
    setTabs((prev) => {
      const next = prev.filter((t) => !isAtOrBelow(t.path, path));
      setActive((a) => (a !== undefined && isAtOrBelow(a, path) ? next[next.length - 1]?.path : a));
      return next;
    });
    setDirty((prev) => new Set([...prev].filter((p) => !isAtOrBelow(p, path))));
  }, []);

  useBatchedSocketEvent("file/changed", (batch) => {
    const touched = new Set<string>();
    for (const e of batch) {
      applyChange(e);
      if (e.kind === "change" || e.kind === "add") touched.add(e.path);
      // Auto-focus: a new agent output is selected in the tree and shown.
      if (e.kind === "add" && isGenerated(e.path)) open(e.path);
    }
    if (touched.size > 0)
      setTabs((prev) => prev.map((t) => (touched.has(t.path) ? { ...t, version: t.version + 1 } : t)));
  });
  useSocketEvent("file/open", (e) => open(e.path, e.line));
  // Every output of an agent run (new or rewritten, whichever window asked) opens and is selected; an
  // open tab of a rewritten file reloads. The watcher's event kind cannot tell: a rewrite is a "change".
  useSocketEvent("agent/outputs", (e) => {
    const outputs = new Set(e.outputs);
    setTabs((prev) => prev.map((t) => (outputs.has(t.path) ? { ...t, version: t.version + 1 } : t)));
    for (const p of e.outputs) open(p);
  });

  return (
    <div className="workspace">
      <header className="topbar">
        <span className="brand">textide</span>
        {connected && clusterDown ? (
          <span
            className="conn warn"
            title="This server cannot reach the other textide servers right now: changes and answers from windows on other servers do not show here until it can."
          >
            ● live, other servers unreachable
          </span>
        ) : (
          <span className={connected ? "conn ok" : "conn"} title={connected ? "live updates on" : "disconnected"}>
            {connected ? "● live" : "○ offline"}
          </span>
        )}
        <span className="spacer" />
        <UserBadge />
        <button type="button" onClick={toggleConsole} aria-pressed={consoleOpen} title="MCP call log (Ctrl+`)">
          Console
        </button>
        <button type="button" onClick={toggleTheme} aria-label="Toggle theme">
          {theme === "dark" ? "☀ Light" : "☾ Dark"}
        </button>
      </header>
      <Group orientation="horizontal" className="panels">
        <Panel id="explorer" defaultSize="20" minSize="10">
          <Explorer tree={tree} selected={active} onOpen={open} onRenamed={onRenamed} onDeleted={onDeleted} />
        </Panel>
        <Separator className="separator" />
        <EditorPanel consoleOpen={consoleOpen} onCloseConsole={toggleConsole}>
          <section className="editor-area" aria-label="Editor">
            <div className="tabs" role="tablist" ref={tabList}>
              {tabs.map((t) => {
                const name = baseName(t.path);
                return (
                  <div
                    key={t.id}
                    role="tab"
                    aria-selected={t.path === active}
                    className={t.path === active ? "tab active" : "tab"}
                    title={t.path}
                    data-path={t.path}
                    onClick={() => setActive(t.path)}
                    onAuxClick={(e) => e.button === 1 && close(t.path)}
                  >
                    <span aria-hidden>{iconOf({ name, path: t.path, type: "file" }, false)}</span>
                    <span>{name}</span>
                    {dirty.has(t.path) ? <span className="dirty-dot">●</span> : null}
                    <button
                      type="button"
                      className="tab-close"
                      aria-label={`Close ${name}`}
                      onClick={(e) => {
                        e.stopPropagation();
                        close(t.path);
                      }}
                    >
                      ×
                    </button>
                  </div>
                );
              })}
            </div>
            <div className="tab-panels">
              {tabs.length === 0 ? (
                <div className="viewer-note">Open a file from the explorer, or ask the agent.</div>
              ) : null}
              {tabs.map((t) => (
                <div key={t.id} className="tab-panel" role="tabpanel" hidden={t.path !== active} data-path={t.path}>
                  <FileView
                    path={t.path}
                    version={t.version}
                    line={t.line}
                    theme={theme}
                    onDirtyChange={onDirtyChange}
                    onOpen={open}
                  />
                </div>
              ))}
            </div>
          </section>
        </EditorPanel>
        <Separator className="separator" />
        <Panel id="chat" defaultSize="25" minSize="12">
          <ChatPanel onOpen={open} />
        </Panel>
      </Group>
      <QuickOpen onOpen={open} />
    </div>
  );
}
