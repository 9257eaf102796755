import { hasLongDigitRun } from './has-long-digit-run.js';

/**
 * JSON text → value, with every integer exact. The API document types
 * `ticket_id` (and the counts) as `integer` with no bound, and `JSON.parse`
 * reads every number as a double, which holds integers exactly only up to
 * 2^53: `9007199254740993` would come back as `9007199254740992`, silently.
 *
 * Every integer literal of at most 15 digits is exact in a double, so a text
 * without a run of 16 digits (nearly every answer, every output line) is
 * parsed by `JSON.parse` itself, after one quick look (has-long-digit-run.ts).
 * A text with such a run (a long integer, or only a long digit string inside a
 * string) is parsed here:
 * the same values as `JSON.parse`, except that an integer literal beyond
 * ±(2^53 − 1) is a `bigint` of its digits. Safe integers stay numbers, and a
 * literal with a fraction or an exponent stays a number (a double) whatever
 * its digits. Both paths accept exactly the texts `JSON.parse` accepts.
 */

/** The parsed value of `text`, integers beyond 2^53 as bigints; throws a SyntaxError where `JSON.parse` does. */
export function parseJsonExact(text: string): unknown {
  return hasLongDigitRun(text) ? parseJsonLossless(text) : JSON.parse(text);
}

/** The characters of a string up to its first quote, backslash or control character (which JSON refuses raw). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters end a JSON string's plain run
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
/** A whole string token with escapes, as JSON allows them; one unit per step, so a cut-off text fails in linear time. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are not allowed raw in a JSON string
const STRING_TOKEN = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** An open array or object, and for an object the key its next value goes under. */
interface Frame {
  container: unknown[] | Record<string, unknown>;
  array: boolean;
  key: string;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The lossless path, for a caller that has looked for a long run already: a
 * plain parser over the text, with an explicit stack (no recursion, so nesting
 * is bounded by memory as in `JSON.parse`). Strings without escapes are sliced
 * from the text; a string with escapes is decoded by `JSON.parse` of its token,
 * so every escape means what it means there.
 */
export function parseJsonLossless(text: string): unknown {
  const end = text.length;
  let pos = 0;
  const stack: Frame[] = [];

  const fail = (what: string): never => {
    const at = pos < end ? `at position ${pos}` : 'at the end';
    throw new SyntaxError(`${what} in JSON ${at}`);
  };

  const skipSpace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      // JSON's whitespace is space, tab, line feed and carriage return only.
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else return;
    }
  };

  const readString = (): string => {
    PLAIN_RUN.lastIndex = pos + 1;
    PLAIN_RUN.test(text);
    const stop = PLAIN_RUN.lastIndex;
    const c = text.charCodeAt(stop);
    if (c === QUOTE) {
      const value = text.slice(pos + 1, stop);
      pos = stop + 1;
      return value;
    }
    if (c !== BACKSLASH) return fail(stop >= end ? 'Unterminated string' : 'Bad control character in string');
    STRING_TOKEN.lastIndex = pos;
    if (!STRING_TOKEN.test(text)) return fail('Bad string');
    const token = text.slice(pos, STRING_TOKEN.lastIndex);
    pos = STRING_TOKEN.lastIndex;
    return JSON.parse(token) as string;
  };

  const readDigits = () => {
    const from = pos;
    while (isDigit(text.charCodeAt(pos))) pos++;
    if (pos === from) fail('No number after minus sign, point or exponent');
  };

  const readNumber = (): number | bigint => {
    const start = pos;
    if (text.charCodeAt(pos) === MINUS) pos++;
    if (text.charCodeAt(pos) === 0x30) pos++;
    else readDigits();
    let integer = true;
    if (text.charCodeAt(pos) === 0x2e) {
      pos++;
      readDigits();
      integer = false;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === MINUS) pos++;
      readDigits();
      integer = false;
    }
    const token = text.slice(start, pos);
    const value = Number(token);
    // Up to 15 characters (sign included) an integer is always safe; past that, only a check tells.
    return integer && pos - start > 15 && !Number.isSafeInteger(value) ? BigInt(token) : value;
  };

  const readWord = (word: string, value: unknown): unknown => {
    if (!text.startsWith(word, pos)) fail('Unexpected token');
    pos += word.length;
    return value;
  };

  const readKey = (frame: Frame) => {
    skipSpace();
    if (text.charCodeAt(pos) !== QUOTE) fail('Expected a property name');
    frame.key = readString();
    skipSpace();
    if (text.charCodeAt(pos) !== COLON) fail("Expected ':' after a property name");
    pos++;
  };

  for (;;) {
    skipSpace();
    const c = text.charCodeAt(pos);
    let value: unknown;
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const array = c === OPEN_ARRAY;
      pos++;
      skipSpace();
      if (text.charCodeAt(pos) === (array ? CLOSE_ARRAY : CLOSE_OBJECT)) {
        pos++;
        value = array ? [] : {};
      } else {
        const frame: Frame = { container: array ? [] : {}, array, key: '' };
        stack.push(frame);
        if (!array) readKey(frame);
        continue;
      }
    } else if (c === QUOTE) value = readString();
    else if (c === MINUS || isDigit(c)) value = readNumber();
    else if (c === 0x74) value = readWord('true', true);
    else if (c === 0x66) value = readWord('false', false);
    else if (c === 0x6e) value = readWord('null', null);
    else fail(pos >= end ? 'Unexpected end' : 'Unexpected token');

    // The value is complete: put it in its container, and close every container it completes.
    for (;;) {
      const frame = stack.at(-1);
      if (frame === undefined) {
        skipSpace();
        if (pos < end) fail('Unexpected non-whitespace character after JSON');
        return value;
      }
      if (frame.array) (frame.container as unknown[]).push(value);
      else setMember(frame.container as Record<string, unknown>, frame.key, value);
      skipSpace();
      const next = text.charCodeAt(pos++);
      if (next === COMMA) {
        if (!frame.array) readKey(frame);
        break;
      }
      if (next !== (frame.array ? CLOSE_ARRAY : CLOSE_OBJECT)) {
        pos--;
        fail(frame.array ? "Expected ',' or ']' after an array element" : "Expected ',' or '}' after a property value");
      }
      stack.pop();
      value = frame.container;
    }
  }
}

/**
 * A member as `JSON.parse` makes it: an own data property, also for `__proto__`
 * (which an assignment would take as the object's prototype); a repeated key
 * keeps its first place and takes the last value.
 */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
