import { isPlainObject } from '../../plain-object.js';
import type { ColumnKind } from '../rows/table-spec.js';
import { exactDouble, fitsInt64 } from './integer-range.js';

/** Returned by coerceValue when a value does not fit its column (it then goes to `_extra`). */
export const INVALID: unique symbol = Symbol('invalid');

/**
 * Returned when a value is of the column's kind but beyond what its warehouse
 * type holds: an integer outside the signed 64-bit range in an `int` column, an
 * integer no double equals in a `number` column. The record is rejected with
 * the column and the value named (normalize-record.ts), never rounded.
 */
export const OUT_OF_RANGE: unique symbol = Symbol('out of range');

/** What a column expects, as written in `_extra._notes`. */
export const EXPECTED: Record<ColumnKind, string> = {
  string: 'string',
  int: 'integer',
  number: 'number',
  bool: 'boolean',
  timestamp: 'ISO-8601 date-time',
  date: 'date (YYYY-MM-DD)',
  string_array: 'array of strings',
  array: 'array',
  object: 'object',
  json: 'JSON value',
};

// Date, optional time with optional seconds/fraction, optional zone (Z, ±HH:MM, ±HHMM, ±HH).
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:$|[Tt ])/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= DAYS_IN_MONTH[m - 1]! + (leap ? 1 : 0);
}

/** Two ASCII digits at `i` as a number, or -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The common case without regex or Date: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, already
 * UTC. Returns undefined for anything else (the general parser decides then).
 */
function fastUtc(s: string): string | undefined {
  const n = s.length;
  if (n < 20 || s.charCodeAt(n - 1) !== 90 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T') return undefined;
  if (s[13] !== ':' || s[16] !== ':') return undefined;
  const century = two(s, 0);
  const year = two(s, 2);
  if (century < 0 || year < 0 || !isCalendarDate(century * 100 + year, two(s, 5), two(s, 8))) return undefined;
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  if (n === 20) return `${s.slice(0, 19)}.000Z`;
  if (s[19] !== '.' || n < 22) return undefined;
  for (let i = 20; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return `${s.slice(0, 19)}.${fraction(s.slice(20, n - 1))}Z`;
}

/**
 * Fraction digits as written: at least milliseconds, up to microseconds when the
 * server sent them (what every target warehouse stores); finer digits are cut.
 */
function fraction(digits: string): string {
  return digits.length <= 3 ? digits.padEnd(3, '0') : digits.padEnd(6, '0').slice(0, 6);
}

/**
 * Any ISO-8601 date-time → UTC `toISOString()` form. A value without a zone is read
 * as UTC (the API document says timestamps are ISO 8601 and shows no zone rule);
 * a bare date is midnight UTC. Impossible dates (Feb 30) are invalid, not rolled over.
 */
export function toUtcTimestamp(text: string): string | typeof INVALID {
  const fast = fastUtc(text);
  if (fast !== undefined) return fast;
  const m = TIMESTAMP.exec(text);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return INVALID;
  const time = m[4] === undefined ? '00:00:00' : `${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}`;
  let zone = m[8] ?? 'Z';
  if (zone.length === 3) zone = `${zone}:00`;
  else if (zone.length === 5) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${time}${zone.toUpperCase()}`);
  if (Number.isNaN(ms)) return INVALID;
  const iso = new Date(ms).toISOString();
  // Years outside 0000-9999 print as ±YYYYYY, which is not a valid RFC 3339 date-time.
  if (iso.length !== 24) return INVALID;
  // Date keeps milliseconds only; a zone shifts whole minutes, so the digits below
  // a millisecond are the same in UTC and go back as written.
  return `${iso.slice(0, 20)}${fraction(`${iso.slice(20, 23)}${(m[7] ?? '').slice(4)}`)}Z`;
}

/** `YYYY-MM-DD`, or the date part of a date-time exactly as written (no zone shift). */
export function toDate(text: string): string | typeof INVALID {
  const m = DATE_PREFIX.exec(text);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return INVALID;
  return text.length === 10 ? text : text.slice(0, 10);
}

function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

/**
 * Checks (and for timestamps and dates, rewrites) one non-null value for its column
 * kind. Nothing is coerced across JSON types: "5" in an integer column is INVALID,
 * kept in `_extra` with a note, so the warehouse never sees a guessed value.
 * An integer beyond 2^53 arrives as a bigint (exact-json): an `int` column keeps
 * it when a BIGINT holds it, a `number` column when a double equals it; any
 * other is OUT_OF_RANGE. A number that is not a safe integer (a literal with a
 * fraction or an exponent, such as `1e20`) is INVALID in an `int` column, as before.
 */
export function coerceValue(kind: ColumnKind, value: unknown): unknown {
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? value : INVALID;
    case 'int':
      if (typeof value === 'bigint') return fitsInt64(value) ? value : OUT_OF_RANGE;
      return Number.isSafeInteger(value) ? value : INVALID;
    case 'number':
      if (typeof value === 'bigint') return exactDouble(value) ?? OUT_OF_RANGE;
      return typeof value === 'number' && Number.isFinite(value) ? value : INVALID;
    case 'bool':
      return typeof value === 'boolean' ? value : INVALID;
    case 'timestamp':
      return typeof value === 'string' ? toUtcTimestamp(value) : INVALID;
    case 'date':
      return typeof value === 'string' ? toDate(value) : INVALID;
    case 'string_array':
      return isStringArray(value) ? value : INVALID;
    case 'array':
      return Array.isArray(value) ? value : INVALID;
    case 'object':
      return isPlainObject(value) ? value : INVALID;
    case 'json':
      return value;
  }
}

/** The JSON type name of a value, for notes: string, number, boolean, array, object (a bigint is a JSON number). */
export function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'bigint' ? 'number' : typeof value;
}
