import { type AnchoredPath, type PathPolicy } from "@textide/shared/node";
import { AppError } from "../errors.js";

/**
 * Runs `fn` on a directory entry addressed by the explorer (create / rename / delete / upload):
 * the parent is opened and checked by the policy, and `fn` acts through that descriptor on the
 * entry itself, never on a symlink's target. A root itself is refused.
 */
export async function withEntry<T>(
  policy: PathPolicy,
  input: string,
  opts: { createParents?: boolean },
  fn: (entry: AnchoredPath) => Promise<T>,
): Promise<T> {
  const { root, candidate } = policy.locate(input);
  if (candidate === root.real) {
    throw new AppError(
      403,
      "forbidden",
      `${root.name} is a workspace root; it cannot be renamed, moved or deleted. Choose a file or folder inside it.`,
    );
  }
  return policy.withParent(input, "create-dir", opts, fn);
}

export function existsError(display: string, hint = "Choose another name."): AppError {
  return new AppError(409, "exists", `${display} already exists. ${hint}`);
}
