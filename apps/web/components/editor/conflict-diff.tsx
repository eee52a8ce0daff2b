"use client";

import { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useEffect, useRef, type ReactNode } from "react";
import "./monaco-setup";

export interface ConflictDiffProps {
  disk: string;
  mine: string;
  language: string;
  theme: "light" | "dark";
}

/** Monaco's side-by-side diff: the file on disk (left) against the unsaved edits (right). Loaded lazily. */
export default function ConflictDiff({ disk, mine, language, theme }: ConflictDiffProps): ReactNode {
  const editorRef = useRef<Parameters<DiffOnMount>[0]>(null);
  useEffect(
    () => () => {
      // The models are kept on unmount (disposing them while the widget still holds them throws);
      // free them once the widget is gone.
      const model = editorRef.current?.getModel();
      setTimeout(() => {
        model?.original.dispose();
        model?.modified.dispose();
      }, 0);
    },
    [],
  );
  return (
    <DiffEditor
      original={disk}
      modified={mine}
      language={language}
      theme={theme === "dark" ? "vs-dark" : "vs"}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={(editor) => {
        editorRef.current = editor;
      }}
      options={{
        readOnly: true,
        originalEditable: false,
        renderSideBySide: true,
        minimap: { enabled: false },
        fontSize: 13,
        automaticLayout: true,
        scrollBeyondLastLine: false,
      }}
    />
  );
}
