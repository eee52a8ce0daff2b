import {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
  type Json,
} from "@duckdb/node-api";

/*
 * DuckDB values as JSON, one rule per kind (the tool description states them to the model):
 * - integers are numbers while they fit in ±(2^53−1), beyond that strings (exact digits);
 * - DECIMAL values are numbers (a double: about 15 significant digits);
 * - FLOAT/DOUBLE are numbers; NaN and ±Infinity, which JSON has no numbers for, are strings;
 * - DATE `2024-05-01`, TIMESTAMP `2024-05-01T13:45:00`, TIMESTAMPTZ `2024-05-01T13:45:00+00:00`;
 * - everything else as @duckdb/node-api's JSON converter gives it (text, lists, structs, …).
 */

const INTEGERS = new Set([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT]);
const TIMESTAMPS = new Set([
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
]);

export const jsonValue: DuckDBValueConverter<Json> = (value: DuckDBValue, type: DuckDBType, self) => {
  if (value === null) return null;
  if (INTEGERS.has(type.typeId) && typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (type.typeId === DuckDBTypeId.DECIMAL) return Number(String(value));
  if (TIMESTAMPS.has(type.typeId)) return isoTimestamp(String(value));
  return JsonDuckDBValueConverter(value, type, self);
};

/** DuckDB's `2024-05-01 13:45:00.5+00` as ISO 8601 `2024-05-01T13:45:00.5+00:00`; infinities as they are. */
function isoTimestamp(text: string): string {
  if (!/^-?\d{4,}-\d\d-\d\d /.test(text)) return text;
  return text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00");
}
