"use client";

import type { ReactNode } from "react";
import { Group, Panel, Separator } from "react-resizable-panels";
import { ConsolePanel } from "./console-panel";
import styles from "./console.module.css";

/** The workspace's editor column: the editor (children) above, and the console below while it is open. */
export function EditorPanel({
  consoleOpen,
  onCloseConsole,
  children,
}: {
  consoleOpen: boolean;
  onCloseConsole: () => void;
  children: ReactNode;
}): ReactNode {
  return (
    <Panel id="editor" defaultSize="55" minSize="20">
      <Group orientation="vertical" className={styles.column}>
        <Panel id="editor-main" minSize="20">
          {children}
        </Panel>
        {consoleOpen ? (
          <>
            <Separator className={`separator ${styles.rowSeparator}`} />
            <Panel id="console" defaultSize="30" minSize="10">
              <ConsolePanel onClose={onCloseConsole} />
            </Panel>
          </>
        ) : null}
      </Group>
    </Panel>
  );
}
