/**
 * What the typed columns hold of an integer. An `int` column is a BIGINT in
 * every warehouse (INT64 in Parquet, NUMBER(38,0) in Snowflake): a signed
 * 64-bit integer. A `number` column is a DOUBLE, which holds an integer
 * exactly only when its binary form fits 53 bits of mantissa.
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Whether a BIGINT column holds `value`. */
export function fitsInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** `value` as the double that equals it exactly, or undefined when no double does (it would be rounded). */
export function exactDouble(value: bigint): number | undefined {
  const double = Number(value);
  return BigInt(double) === value ? double : undefined;
}
