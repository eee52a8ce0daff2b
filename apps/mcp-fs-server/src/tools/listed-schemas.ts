import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";

/**
 * Each tool's input and output schema as JSON Schema text, keyed `<tool>.input` / `<tool>.output`,
 * converted from zod when scripts/bundle.mjs built the start-up bundle: it writes them in place of the
 * `undefined` below. Converting them at the first tools/list instead cost about 30 ms of CPU, a tenth
 * of the server's start-up. From tsc's output (tests, other workspaces importing dist/server.js) there
 * are none, and the SDK converts the zod schemas as usual.
 */
const BUILT: Readonly<Record<string, string>> | undefined = /* listed-schemas */ undefined;

/** The draft the SDK asks for (its JSON_SCHEMA_CONVERSION_TARGET); any other is converted as usual. */
const TARGET = "draft-2020-12";

/**
 * `schema` as the SDK takes it: the same validation, with the build-time JSON Schema for the side
 * (`io`) it describes when one was built for `tool`. The SDK reads schemas only through this interface.
 */
export function listedSchema<S extends z.ZodType>(
  schema: S,
  tool: string,
  io: "input" | "output",
): S | StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const built = BUILT?.[`${tool}.${io}`];
  if (built === undefined) return schema;
  const std = schema["~standard"];
  const convert = std.jsonSchema[io];
  return {
    "~standard": {
      ...std,
      jsonSchema: {
        ...std.jsonSchema,
        // A fresh object per call, as zod returns: the SDK may extend what it gets.
        [io]: (opts: Parameters<typeof convert>[0]) =>
          opts.target === TARGET ? (JSON.parse(built) as Record<string, unknown>) : convert(opts),
      },
    },
  };
}
