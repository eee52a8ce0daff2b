import { z } from "zod";

/**
 * Query-string parameters as the REST routes read them: every value arrives as a string, and an empty one
 * (`?sort=`) means "not given".
 */
const given = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/** A whole number from `min` to `max`, with a message that names the parameter. */
export function intParam(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
  return given(
    z.string().transform((raw, ctx) => {
      const n = Number(raw);
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      ctx.addIssue({
        code: "custom",
        message: `\`${name}\` must be a whole number ${range} (got ${JSON.stringify(raw)}).`,
      });
      return z.NEVER;
    }),
  );
}

/** A text parameter of at most `maxLength` characters. */
export function textParam(name: string, maxLength = 4096) {
  return given(z.string().max(maxLength, { message: `\`${name}\` is limited to ${maxLength} characters.` }));
}

/** A required workspace path. */
export const pathParam = z.string({ message: "Missing `path` query parameter." }).min(1, {
  message: "Missing `path` query parameter.",
});

/** The query string for a route's parameters (undefined ones left out), as the client sends it. */
export function toQuery(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return search.toString();
}
