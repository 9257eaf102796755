/**
 * A scalar as JSON text, integers of every size exact: a string escaped by
 * `JSON.stringify`, a finite number as its shortest form, a bigint as its digits
 * (the text an API answer holds), a non-finite number `null`; undefined for
 * anything that is not one (an object, an array, `undefined`, a function).
 */
export function jsonScalar(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    default:
      return undefined;
  }
}
