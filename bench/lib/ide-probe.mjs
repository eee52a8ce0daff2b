// Code that runs inside the IDE page (passed to playwright's addInitScript / evaluate, which send the
// function's source). It reads the DOM only through `data-path`, roles and aria-labels, so it keeps
// working while the UI's markup changes. Each export is self-contained: only its source reaches the page. Times are `performance.timeOrigin + performance.now()`
// (epoch ms, sub-ms resolution) so the bench can map them onto its own clock.
/* global window, document, MutationObserver, requestAnimationFrame, getComputedStyle */

/** Init script: logs `file_changed` frames as they arrive on the page's websocket and records TTI. */
export function installProbe() {
  const fileChanged = [];
  const Native = window.WebSocket;
  // Listeners added in the constructor run before socket.io's own `onmessage`.
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        if (typeof e.data !== "string" || !e.data.startsWith("42") || !e.data.includes('"file_changed"')) return;
        const t = performance.timeOrigin + performance.now();
        try {
          const [, payload] = JSON.parse(e.data.slice(e.data.indexOf("[")));
          fileChanged.push({ t, path: payload.path, kind: payload.kind });
        } catch {
          // not a socket.io event frame
        }
      });
    }
  };
  // Interactive = a tree row is rendered and the chat input is there and enabled (ms since navigation start).
  const tti = new Promise((resolve) => {
    const ready = () => {
      const input = document.querySelector('[aria-label="Chat"] textarea');
      return document.querySelector('[role="tree"] [data-path]') && input && !input.disabled;
    };
    const mo = new MutationObserver(() => {
      if (ready()) {
        mo.disconnect();
        resolve(performance.now());
      }
    });
    mo.observe(document, { subtree: true, childList: true, attributes: true });
  });
  window.__bench = { fileChanged, tti };
}

/** Resolves with the time to interactive (ms since navigation start). */
export function interactiveAt() {
  return window.__bench.tti;
}

/** The `file_changed` frames seen so far: `{ t, path, kind }`. */
export function fileChangedFrames() {
  return window.__bench.fileChanged;
}

/** This page's clock, in epoch ms. */
export function pageNow() {
  return performance.timeOrigin + performance.now();
}

/**
 * Resolves (epoch ms) once the image of `path` is shown: its tab panel is not hidden and the image
 * has loaded and decoded.
 */
export function waitImageShown(path) {
  const sel = `[role="tabpanel"][data-path=${JSON.stringify(path)}]`;
  return new Promise((resolve) => {
    const done = (img) => img.decode().then(() => resolve(performance.timeOrigin + performance.now()));
    let armed = false;
    const check = () => {
      const panel = document.querySelector(sel);
      const img = panel?.querySelector("img");
      if (!img || panel.hidden) return false;
      if (img.complete && img.naturalWidth > 0) void done(img);
      else if (!armed) {
        armed = true;
        img.addEventListener("load", () => void done(img), { once: true });
      } else return false;
      return true;
    };
    if (check()) return;
    const mo = new MutationObserver(() => {
      if (check()) mo.disconnect();
    });
    mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["hidden"] });
  });
}

/** Clicks the folder's tree row; ms until its first child row is rendered and painted. */
export async function expandFolder(dir) {
  // Each function is sent alone to the page, so helpers are defined inside it.
  const frames = (n) =>
    new Promise((resolve) => {
      const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
      step(n);
    });
  const row = document.querySelector(`[role="tree"] [data-path=${JSON.stringify(dir)}]`);
  if (!row) throw new Error(`no tree row for ${dir}`);
  const childSel = `[role="tree"] [data-path^=${JSON.stringify(`${dir}/`)}]`;
  const t0 = performance.now();
  row.click();
  await new Promise((resolve) => {
    if (document.querySelector(childSel)) return resolve();
    const mo = new MutationObserver(() => {
      if (document.querySelector(childSel)) {
        mo.disconnect();
        resolve();
      }
    });
    mo.observe(document.body, { subtree: true, childList: true });
  });
  await frames(2);
  return performance.now() - t0;
}

/**
 * Scrolls the tree to its end (repeating while a virtualised or paged list grows) and reports the time
 * until the last row of `dir` is painted, which row that is, and how many tree rows the DOM holds.
 */
export async function scrollToEnd(dir) {
  // Each function is sent alone to the page, so helpers are defined inside it.
  const frames = (n) =>
    new Promise((resolve) => {
      const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
      step(n);
    });
  const rowsSel = `[role="tree"] [data-path^=${JSON.stringify(`${dir}/`)}]`;
  const first = document.querySelector(rowsSel);
  let box = first?.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY)))
    box = box.parentElement;
  if (!box) throw new Error("no scrollable container around the tree rows");
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) {
    const height = box.scrollHeight;
    box.scrollTop = box.scrollHeight;
    await frames(2);
    if (box.scrollHeight === height && box.scrollTop + box.clientHeight >= box.scrollHeight - 1) break;
  }
  const ms = performance.now() - t0;
  const rows = document.querySelectorAll(rowsSel);
  const last = rows[rows.length - 1];
  const r = last.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  return {
    ms,
    last: last.dataset.path,
    lastVisible: r.bottom > b.top && r.top < b.bottom,
    domRows: document.querySelectorAll('[role="tree"] [data-path]').length,
  };
}
