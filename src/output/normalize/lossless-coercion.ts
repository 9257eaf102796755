import type { ColumnKind } from '../rows/table-spec.js';
import { INVALID, OUT_OF_RANGE } from './coerce-value.js';
import { fitsInt64 } from './integer-range.js';

// Exactly one integer: optional minus, no leading zeros, no spaces, no exponent.
const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
// A plain decimal: the integer rule, then an optional fraction.
const DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const TRUE_VALUES = new Set<unknown>(['true', 1, '1']);
const FALSE_VALUES = new Set<unknown>(['false', 0, '0']);
/** A double holds every decimal of up to 15 significant digits exactly (IEEE 754 binary64). */
const EXACT_DIGITS = 15;

function significantDigits(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '');
  const trimmed = digits.replace(/^0+/, '');
  const withoutTrailing = text.includes('.') ? trimmed.replace(/0+$/, '') : trimmed;
  return withoutTrailing.length;
}

/**
 * A value of another JSON type that stands for exactly one value of the column's
 * kind, as loosely typed backends send them (docs/output.md, "Typed columns"):
 * `"1001"` in an integer column, `"12.5"` in a number column, `true`/`false`/
 * `0`/`1` and their strings in a boolean column. Only where nothing is guessed:
 * `"01"`, `" 1"`, `"1e3"` or a decimal past 15 significant digits stay INVALID
 * (kept in `_extra` with a note). An integer past 2^53 − 1 is a bigint of its
 * digits when a BIGINT holds it, and OUT_OF_RANGE (the record rejected) when not:
 * the same rule as for the integer sent as a number (coerce-value.ts).
 */
export function coerceLossless(kind: ColumnKind, value: unknown): unknown {
  switch (kind) {
    case 'int': {
      if (typeof value !== 'string' || !INTEGER_TEXT.test(value) || value === '-0') return INVALID;
      const n = Number(value);
      if (Number.isSafeInteger(n)) return n;
      const exact = BigInt(value);
      return fitsInt64(exact) ? exact : OUT_OF_RANGE;
    }
    case 'number': {
      if (typeof value !== 'string' || !DECIMAL_TEXT.test(value) || value === '-0') return INVALID;
      return significantDigits(value) <= EXACT_DIGITS ? Number(value) : INVALID;
    }
    case 'bool':
      if (TRUE_VALUES.has(value)) return true;
      return FALSE_VALUES.has(value) ? false : INVALID;
    default:
      return INVALID;
  }
}
