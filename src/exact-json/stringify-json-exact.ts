import { jsonScalar } from './json-scalar.js';

/**
 * Value → JSON text, a bigint written as its digits (`JSON.stringify` throws a
 * TypeError on one). `JSON.stringify` stays the writer of every value without a
 * bigint: only when it throws is the value written again by the small writer
 * below, which gives the same text as `JSON.stringify` would with bigints
 * allowed (members in `Object.keys` order, `undefined`, functions and symbols
 * left out of objects and `null` in arrays, non-finite numbers `null`,
 * `toJSON` honoured, strings escaped by `JSON.stringify` itself). `indent`:
 * spaces per level, as `JSON.stringify`'s third argument.
 */
export function stringifyJsonExact(value: unknown, indent = 0): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    // A cycle is a TypeError too: the writer below meets it again and throws the same way.
    if (!(error instanceof TypeError)) throw error;
    return write(value, '', { parents: [], gap: ' '.repeat(indent), at: '' }) as string;
  }
}

/** Where the writer is: the objects open above it (to refuse a cycle), one level's indent, and the current one. */
interface Place {
  parents: object[];
  gap: string;
  at: string;
}

/** Members or items inside their brackets, laid out as JSON.stringify lays them out for the same indent. */
function enclose(open: string, parts: string[], close: string, place: Place, inner: string): string {
  if (parts.length === 0) return `${open}${close}`;
  if (place.gap === '') return `${open}${parts.join(',')}${close}`;
  return `${open}\n${inner}${parts.join(`,\n${inner}`)}\n${place.at}${close}`;
}

/** A wrapper object (`new Number(1)`, `Object(1n)`) as the primitive JSON.stringify writes for it. */
function unwrap(value: object): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt)
    return value.valueOf();
  return value;
}

function write(input: unknown, key: string, place: Place): string | undefined {
  let value = input;
  if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key) as unknown;
  }
  if (typeof value === 'object' && value !== null) value = unwrap(value);
  if (typeof value !== 'object') return jsonScalar(value);
  if (value === null) return 'null';
  const { parents } = place;
  if (parents.includes(value)) throw new TypeError('Converting circular structure to JSON');
  parents.push(value);
  const inner = place.at + place.gap;
  const below: Place = { parents, gap: place.gap, at: inner };
  let out: string;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) items.push(write(value[i], String(i), below) ?? 'null');
    out = enclose('[', items, ']', place, inner);
  } else {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    const colon = place.gap === '' ? ':' : ': ';
    for (const name of Object.keys(record)) {
      const text = write(record[name], name, below);
      if (text !== undefined) members.push(`${JSON.stringify(name)}${colon}${text}`);
    }
    out = enclose('{', members, '}', place, inner);
  }
  parents.pop();
  return out;
}
