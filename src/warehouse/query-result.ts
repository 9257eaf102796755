/** A column of a query's answer: its name, and whether its values are numbers (right-aligned in a table). */
export interface QueryColumn {
  name: string;
  numeric: boolean;
}

/**
 * What `query` answers, engine aside: the columns in order and the rows as
 * arrays of JSON values (text, numbers, booleans, null, lists and objects); a
 * whole number beyond 2^53 stays text, as do decimals, so none is rounded.
 */
export interface QueryResult {
  columns: QueryColumn[];
  rows: unknown[][];
}

/** A whole number as text (BIGINT, count(*)) becomes a number when a double holds it exactly. */
export function exactNumber(value: unknown): unknown {
  if (typeof value !== 'string' || !/^-?\d{1,16}$/.test(value)) return value;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}
