/**
 * Lines of an output file as rows of PostgreSQL's COPY text format, typed for the
 * columns of a batch table, so that the server only parses each column instead of
 * landing the line as text and typing it with `json_populate_record` (which took
 * most of a load's time).
 *
 * The typed path gives the rows the landing path gives, value for value, or it
 * gives nothing: a line holding anything whose conversion could differ is left
 * to the landing path (`encodeLine` returns undefined), and a table with a column
 * type not listed here is landed whole. Numbers in the files are JavaScript's
 * shortest round-trip form (the writer is `JSON.stringify`), so a number
 * parsed and printed again is the same value; an integer beyond 2^53 is
 * written as its digits, and a line holding one (a run of 16 digits) is
 * parsed losslessly (parse-json-exact.ts), so it stays those digits: a bigint
 * column takes the integers a BIGINT holds, and jsonb values keep theirs.
 */

import { hasLongDigitRun } from '../../exact-json/has-long-digit-run.js';
import { parseJsonLossless } from '../../exact-json/parse-json-exact.js';
import { stringifyJsonExact } from '../../exact-json/stringify-json-exact.js';
import { fitsInt64 } from '../../output/normalize/integer-range.js';
import type { BatchKeys } from './batch-keys.js';

/** A column of the batch table, as the catalog names its type (`format_type`). */
export interface CopyColumn {
  name: string;
  type: string;
}

/**
 * One value as a COPY field, or undefined when the landing path must type it.
 * `plain`: the line holds no backslash, so no string in it holds a character
 * that COPY's text format or an array literal escapes (see `encodeLine`).
 * `longFloat`: the line holds a number with a fraction or an exponent and a run
 * of 16 digits, which a double may not hold (see `jsonb`).
 */
type Encode = (value: unknown, plain: boolean, longFloat: boolean) => string | undefined;

/** COPY's text format: backslash, newline, carriage return and the delimiter (tab) are escaped. */
const SPECIAL = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
function field(text: string, plain: boolean): string {
  return plain || !SPECIAL.test(text) ? text : text.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!);
}

const text: Encode = (v, plain) => (typeof v === 'string' ? field(v, plain) : undefined);

/** An array literal of strings (`{"a","b"}`), elements quoted; a JSON array of anything else is landed. */
const textArray: Encode = (v, plain) => {
  if (!Array.isArray(v)) return undefined;
  let out = '{';
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (i > 0) out += ',';
    if (item === null) out += 'NULL';
    else if (typeof item === 'string') out += `"${plain ? item : item.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    else return undefined;
  }
  return field(`${out}}`, plain);
};

/**
 * jsonb keeps neither the text's key order nor its spacing, so the value printed
 * again is the same jsonb, but for a number a double does not hold exactly.
 * Integers are read exactly (bigints beyond 2^53) and printed as their digits;
 * a line with a number with a fraction or an exponent and a run of 16 digits
 * (which a double may not hold, and the printed double may not show) is left
 * to the landing path, which reads the number from the line's own text. The
 * run may be in a string (`"v.1234567890123456"`) or in another column: that
 * line is landed too, which costs time only.
 */
const LONG_FLOAT = /[.eE][+-]?[0-9]*[0-9]{16}|[0-9]{16}[.eE]/;
const jsonb: Encode = (v, plain, longFloat) => (longFloat ? undefined : field(stringifyJsonExact(v), plain));

/** A BIGINT: a safe integer, or a bigint (an integer beyond 2^53 as the line spells it) within 64 bits. */
const bigint: Encode = (v) => {
  if (typeof v === 'bigint') return fitsInt64(v) ? String(v) : undefined;
  return Number.isSafeInteger(v) ? String(v) : undefined;
};

const ENCODERS: Readonly<Record<string, Encode>> = {
  text,
  'timestamp with time zone': text,
  date: text,
  bigint,
  'double precision': (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined),
  boolean: (v) => (typeof v === 'boolean' ? (v ? 't' : 'f') : undefined),
  'text[]': textArray,
  jsonb,
};

/**
 * Lines the landing path types: an escaped NUL (which text and jsonb refuse, and
 * the landing path records as an error) or a lone surrogate (which JavaScript
 * would send as U+FFFD). Looked for only in lines with an escape at all.
 */
const LAND_INSTEAD = /\\u(?:0000|[dD][89a-fA-F])/;

export interface TypedCopy {
  /** The COPY statement, its column list in the order of the encoded fields. */
  readonly sql: string;
  /**
   * The line as one COPY row (without its newline), or undefined when the landing
   * path must type it; the key of a row encoded is shown to `keys`.
   */
  encodeLine(line: string, keys?: BatchKeys): string | undefined;
}

/**
 * Key column types whose values are equal exactly when their texts here are: a
 * text key is the string itself, a bigint key a safe integer printed by
 * `String`. Two texts of one date or instant ('2026-01-01T01:00:00+01:00' and
 * '2026-01-01T00:00:00Z') differ, so a key with such a column is not seen.
 */
const EXACT_KEY_TYPES = new Set(['text', 'bigint']);

/** A key column's value as text: a string or a number (a bigint too), as the key's type (text, bigint) takes it. */
function keyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
}

/** The row's key as one text (a composite key as a JSON array), or undefined when a key column has no value. */
function keyOf(values: Record<string, unknown>, keyColumns: readonly string[]): string | undefined {
  if (keyColumns.length === 1) return keyText(values[keyColumns[0]!]);
  const parts: string[] = [];
  for (const column of keyColumns) {
    const part = keyText(values[column]);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return JSON.stringify(parts);
}

/**
 * The typed COPY of a batch table, or undefined when one of its column types has
 * no encoder here; `keyColumns`, the table's key, for the keys shown to BatchKeys.
 */
export function typedCopy(
  table: string,
  columns: readonly CopyColumn[],
  keyColumns: readonly string[] = [],
): TypedCopy | undefined {
  const encoders = columns.map((c) => ENCODERS[c.type]);
  if (columns.length === 0 || encoders.some((e) => e === undefined)) return undefined;
  const names = columns.map((c) => c.name);
  const encode = encoders as Encode[];
  const typeOf = new Map(columns.map((c) => [c.name, c.type]));
  const exactKey = keyColumns.length > 0 && keyColumns.every((k) => EXACT_KEY_TYPES.has(typeOf.get(k) ?? ''));
  return {
    sql: `COPY ${table} (${names.map((n) => `"${n}"`).join(', ')}) FROM STDIN`,
    encodeLine(line, keys) {
      // JSON writes a backslash, quote, newline, carriage return or tab inside a
      // string only as an escape, which begins with a backslash: a line without
      // one has no value to escape (most lines; the escaping took a fifth of the
      // encoding) and nothing to land instead.
      const plain = !line.includes('\\');
      if (!plain && LAND_INSTEAD.test(line)) return undefined;
      // JSON.parse itself, unless the line has a run of 16 digits (an integer beyond 2^53 is kept exact).
      const longRun = hasLongDigitRun(line);
      const longFloat = longRun && LONG_FLOAT.test(line);
      let row: unknown;
      try {
        row = longRun ? parseJsonLossless(line) : JSON.parse(line);
      } catch {
        return undefined;
      }
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return undefined;
      const values = row as Record<string, unknown>;
      let out = '';
      for (let i = 0; i < names.length; i++) {
        const value = values[names[i]!];
        let encoded: string | undefined;
        if (value === undefined || value === null) encoded = '\\N';
        else {
          encoded = encode[i]!(value, plain, longFloat);
          if (encoded === undefined) return undefined;
        }
        out += i === 0 ? encoded : `\t${encoded}`;
      }
      keys?.see(exactKey ? keyOf(values, keyColumns) : undefined);
      return out;
    },
  };
}
