import { stringifyJsonExact } from '../../exact-json/stringify-json-exact.js';

/**
 * Text every warehouse accepts. PostgreSQL refuses NUL in text and jsonb
 * (`invalid byte sequence for encoding "UTF8": 0x00`), and a lone UTF-16
 * surrogate has no UTF-8 form at all (BigQuery, Snowflake and DuckDB reject the
 * escaped `\udXXX` that JSON.stringify writes for one). Both are replaced with
 * U+FFFD, the Unicode replacement character, in every string of a row (values,
 * nested objects, and object keys), and each string changed is counted.
 */

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/**
 * In JSON text both show up only as escapes: JSON.stringify writes NUL as
 * `\u0000` and a lone surrogate as `\udXXX` (lowercase), and a paired surrogate
 * as the raw characters. So one scan of the serialized line finds every row
 * that needs work; a literal backslash followed by such letters (`\\u0000`)
 * matches too, and then the walk below simply finds nothing to change.
 */
const UNSAFE_ESCAPE = /\\u0000|\\ud[89a-f]/;

export const REPLACEMENT = '\ufffd';

/** `text` with NUL and lone surrogates replaced, or the same string when it has none. */
export function safeText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, REPLACEMENT) : text;
}

/** A counter of changed strings, for one walk. */
interface Tally {
  strings: number;
}

function clean(value: unknown, tally: Tally): unknown {
  if (typeof value === 'string') {
    const safe = safeText(value);
    if (safe !== value) tally.strings++;
    return safe;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = clean(value[i], tally);
      if (item !== value[i]) {
        copy ??= value.slice();
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    // No prototype: a `__proto__` key stays an ordinary key, as it was in the JSON.
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) {
      const safeKey = clean(key, tally) as string;
      const safeItem = clean(item, tally);
      if (safeKey !== key || safeItem !== item) changed = true;
      out[safeKey] = safeItem;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * One output line for `row`: its JSON, with NUL and lone surrogates replaced
 * in every string (`sanitized` counts the strings changed). Rows without them,
 * nearly all, cost one regex test of the line. An integer beyond 2^53 (a bigint)
 * is written as its digits, exactly as received (stringify-json-exact.ts: rows
 * without one, nearly all, are written by JSON.stringify alone).
 */
export function serializeSafe(row: unknown): { line: string; sanitized: number } {
  const line = stringifyJsonExact(row);
  if (!UNSAFE_ESCAPE.test(line)) return { line, sanitized: 0 };
  const tally: Tally = { strings: 0 };
  const safe = clean(row, tally);
  return tally.strings === 0 ? { line, sanitized: 0 } : { line: stringifyJsonExact(safe), sanitized: tally.strings };
}
