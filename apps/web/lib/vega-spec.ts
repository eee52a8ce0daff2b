/** Recognising Vega-Lite specs among JSON files. */

const NAMED = /\.(vl|vega-lite)\.json$/i;
const SCHEMA = /"\$schema"\s*:\s*"[^"]*vega-lite/;

/**
 * True for `*.vl.json`, `*.vega-lite.json`, and any JSON object whose `$schema` names vega-lite
 * (what the agent's chart helper writes beside its images).
 */
export function isVegaLiteSpec(path: string, content: string): boolean {
  if (NAMED.test(path)) return true;
  if (!path.toLowerCase().endsWith(".json") || !SCHEMA.test(content)) return false;
  try {
    const value: unknown = JSON.parse(content);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const schema = (value as { $schema?: unknown }).$schema;
    return typeof schema === "string" && /vega-lite/i.test(schema);
  } catch {
    return false;
  }
}
