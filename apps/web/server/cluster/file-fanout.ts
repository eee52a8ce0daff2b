import { stat } from "node:fs/promises";
import path from "node:path";
import { ROOT, type FileChangedEvent } from "@textide/shared";
import type { PathPolicy } from "@textide/shared/node";

/** A change as it travels between instances: the event plus what identifies this version of the file. */
export interface SharedChange {
  event: FileChangedEvent;
  /** mtime and size for `add`/`change` ("" when the file is already gone or for other kinds). */
  version: string;
}

/** How long a change is remembered for recognising the same change reported by the other side. */
const SAME_CHANGE_MS = 10_000;
/** Kinds without a version (unlink, folders) are the same change only within this shorter window. */
const SAME_UNVERSIONED_MS = 2_000;

/**
 * Where every instance sees the workspace's changes itself (one shared local disk), a change reaches a
 * window twice: from its own instance's watcher and from the instance that published it. Where the disk
 * is a network one, only the instance that made the change sees it. This keeps both cases to one event per
 * window: a change is passed on unless the other side (local watcher vs. another instance) already passed on
 * the same version of the same file.
 */
export class ChangeDeduper {
  /** key → when and from where it was passed on. */
  private readonly seen = new Map<string, { at: number; from: "local" | "remote"; versioned: boolean }>();
  private swept = 0;

  /** True when the change should reach this instance's windows; records it. */
  admit(change: SharedChange, from: "local" | "remote", now = Date.now()): boolean {
    this.expire(now);
    const key = `${change.event.root}\0${change.event.path}\0${change.event.kind}\0${change.version}`;
    const previous = this.seen.get(key);
    if (previous && previous.from !== from) {
      this.seen.delete(key);
      return false;
    }
    this.seen.set(key, { at: now, from, versioned: change.version !== "" });
    return true;
  }

  private expire(now: number): void {
    if (now - this.swept < 1000) return;
    this.swept = now;
    for (const [key, v] of this.seen) {
      if (now - v.at >= (v.versioned ? SAME_CHANGE_MS : SAME_UNVERSIONED_MS)) this.seen.delete(key);
    }
  }
}

/** The version of an added or changed file (mtime and size), "" otherwise or when it is gone. */
export async function versionOf(policy: PathPolicy, event: FileChangedEvent): Promise<string> {
  if (event.kind !== "add" && event.kind !== "change") return "";
  const root = policy.roots.find((r) => r.name === event.root);
  if (!root) return "";
  // Display paths of generated_assets start with the root's name; project_root's are relative.
  const rel = event.root === ROOT.project ? event.path : event.path.slice(root.name.length + 1);
  try {
    const s = await stat(path.join(root.real, ...rel.split("/")));
    return `${Math.trunc(s.mtimeMs)}:${s.size}`;
  } catch {
    return "";
  }
}
