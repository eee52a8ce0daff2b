import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { fromNodeError, type PathPolicy, type Root } from "@textide/shared/node";
import { AppError } from "../errors.js";

/** A directory entry addressed by the explorer: the entry itself, never a symlink's target. */
export interface Entry {
  root: Root;
  /** Absolute path: the real parent directory joined with the entry's own name. */
  abs: string;
  /** The real parent directory (may not exist yet for a new entry). */
  parentAbs: string;
  display: string;
  /** `lstat` of the entry; undefined when it does not exist. */
  stats: Stats | undefined;
}

/**
 * Resolves a workspace path for create / rename / delete / upload. The policy checks the parent
 * (containment through symlinks, writable root); the final name is used as is, so renaming or
 * deleting a symlink acts on the link and never on what it points to. A root itself is refused.
 */
export async function resolveEntry(policy: PathPolicy, input: string): Promise<Entry> {
  const { root, candidate } = policy.locate(input);
  if (candidate === root.real) {
    throw new AppError(
      403,
      "forbidden",
      `${root.name} is a workspace root; it cannot be renamed, moved or deleted. Choose a file or folder inside it.`,
    );
  }
  const parent = await policy.resolve(path.dirname(candidate), "create-dir");
  if (parent.stats && !parent.stats.isDirectory()) {
    throw new AppError(400, "not_a_directory", `${parent.display} is a file, not a folder; choose a folder path.`);
  }
  const abs = path.join(parent.abs, path.basename(candidate));
  const display = policy.display(parent.root, abs);
  let stats: Stats | undefined;
  try {
    stats = await lstat(abs);
  } catch (err) {
    const fsErr = fromNodeError(err, display);
    if (fsErr.code !== "not_found") throw fsErr;
  }
  return { root: parent.root, abs, parentAbs: parent.abs, display, stats };
}

export function existsError(display: string, hint = "Choose another name."): AppError {
  return new AppError(409, "exists", `${display} already exists. ${hint}`);
}
