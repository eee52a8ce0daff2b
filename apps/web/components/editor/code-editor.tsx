"use client";

import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef, type ReactNode } from "react";
import { monaco } from "./monaco-setup";

export interface CodeEditorProps {
  path: string;
  language: string;
  /** The text on disk: the editor is uncontrolled and resets to it when this or `revision` changes. */
  value: string;
  /** Bumped on every load from disk, so a reload resets the editor even when the disk text is unchanged. */
  revision: number;
  /** The text shown on mount (unsaved edits survive a remount). */
  initialValue: string;
  theme: "light" | "dark";
  line?: number;
  onChange: (value: string) => void;
  onSave: () => void;
}

/** Monaco, bundled from the local `monaco-editor` package. This module is only ever loaded lazily. */
export default function CodeEditor({
  path,
  language,
  value,
  revision,
  initialValue,
  theme,
  line,
  onChange,
  onSave,
}: CodeEditorProps): ReactNode {
  const saveRef = useRef(onSave);
  const editorRef = useRef<Parameters<OnMount>[0]>(null);
  useEffect(() => {
    saveRef.current = onSave;
  });
  useEffect(() => {
    const editor = editorRef.current;
    if (editor && editor.getValue() !== value) editor.setValue(value);
  }, [value, revision]);
  useEffect(() => {
    const editor = editorRef.current;
    if (editor && line) {
      editor.revealLineInCenter(line);
      editor.setPosition({ lineNumber: line, column: 1 });
    }
  }, [line]);
  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current());
    if (line) {
      editor.revealLineInCenter(line);
      editor.setPosition({ lineNumber: line, column: 1 });
    }
    // No focus on mount: files also open from the tree's keyboard navigation, the agent and other
    // browsers, and taking the focus would interrupt whatever the user is typing there.
  };
  return (
    <Editor
      path={path}
      language={language}
      defaultValue={initialValue}
      theme={theme === "dark" ? "vs-dark" : "vs"}
      onChange={(v) => onChange(v ?? "")}
      onMount={onMount}
      options={{ minimap: { enabled: false }, fontSize: 13, automaticLayout: true, scrollBeyondLastLine: false }}
    />
  );
}
