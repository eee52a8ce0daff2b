/**
 * Every selector the browser tests use, in one place: the UI is still moving (virtualised tree, chat
 * threads, viewers), so tests lean on `data-path`, roles and accessible names, and only this file
 * knows the few class names left.
 */
import type { Locator, Page } from "playwright-core";

const q = (p: string): string => JSON.stringify(p);

/** CSS selectors, for `waitForSelector` and for code evaluated inside the page. */
export const css = {
  treeRow: (p: string) => `[role="tree"] [data-path=${q(p)}]`,
  selectedTreeRow: (p: string) => `[role="tree"] [data-path=${q(p)}][aria-selected="true"]`,
  tab: (p: string) => `[role="tab"][data-path=${q(p)}]`,
  activeTab: (p: string) => `[role="tab"][data-path=${q(p)}][aria-selected="true"]`,
  panel: (p: string) => `[role="tabpanel"][data-path=${q(p)}]`,
  panelImage: (p: string) => `[role="tabpanel"][data-path=${q(p)}] img`,
  panelEditorLines: (p: string) => `[role="tabpanel"][data-path=${q(p)}] .monaco-editor .view-lines`,
  panelTableRow: (p: string) => `[role="tabpanel"][data-path=${q(p)}] table tbody tr`,
  /** A viewer's mode switch (Preview/Source, Chart/Source) in the file's panel. */
  viewToggle: (p: string, mode: string) =>
    `[role="tabpanel"][data-path=${q(p)}] .view-toggle button:has-text(${q(mode)})`,
  saveStatus: (p: string) => `[role="tabpanel"][data-path=${q(p)}] .save-status`,
  connected: ".conn.ok",
  /** Connected, but the server cannot reach the other servers of a team deployment. */
  connWarn: ".conn.warn",
  chatInput: '[aria-label="Chat"] textarea',
  toolCard: (name: string) => `[aria-label="Chat"] .tool-card[data-tool=${q(name)}]`,
  toolCardState: (name: string) => `[aria-label="Chat"] .tool-card[data-tool=${q(name)}] .tool-state`,
  assistantMessage: '[aria-label="Chat"] .msg.assistant',
  /** The links under an answer to the files it produced (their text is the path). */
  outputLink: '[aria-label="Chat"] .msg.assistant .output-link',
  chatNote: '[aria-label="Chat"] .msg.note',
  chatError: '[aria-label="Chat"] .msg.error',
} as const;

/** Role-based locators, where the accessible name is the contract. */
export function ide(page: Page) {
  const chat = page.getByRole("region", { name: "Chat" });
  return {
    chat,
    send: chat.getByRole("button", { name: "Send" }),
    stop: chat.getByRole("button", { name: "Stop" }),
    conflictDialog: page.getByRole("dialog", { name: "File changed on disk" }),
    reloadFromDisk: (dialog: Locator) => dialog.getByRole("button", { name: "Reload from disk" }),
    overwrite: (dialog: Locator) => dialog.getByRole("button", { name: "Overwrite" }),
    themeToggle: page.getByRole("button", { name: "Toggle theme" }),
    /** Every approval card for `tool` in the chat, answered or not. */
    approvalCard: (tool: string) => chat.getByRole("group", { name: `Approve ${tool}` }),
    /** The first approval card for `tool` still waiting for an answer. */
    pendingApproval: (tool: string) =>
      chat
        .getByRole("group", { name: `Approve ${tool}` })
        .filter({ has: page.getByRole("button", { name: "Approve" }) })
        .first(),
  };
}

/**
 * A page-side predicate (a string: this package is type-checked without the DOM lib): true once the image
 * in the file's tab panel has loaded real pixels.
 */
export function imageLoaded(p: string): string {
  return `(() => { const img = document.querySelector(${q(css.panelImage(p))}); return !!img && img.complete && img.naturalWidth > 0; })()`;
}

/** A page-side expression: decodes the panel's image and resolves with its natural width (0 if absent). */
export function decodedImageWidth(p: string): string {
  return `(async () => { const img = document.querySelector(${q(css.panelImage(p))}); if (!img) return 0; await img.decode(); return img.naturalWidth; })()`;
}

/** True once the Monaco editor in the file's panel shows `text` (Monaco renders spaces as U+00A0). */
export function editorShows(p: string, text: string): string {
  return `document.querySelector(${q(css.panelEditorLines(p))})?.textContent?.replace(/\\u00a0/g, " ").includes(${q(text)}) === true`;
}
