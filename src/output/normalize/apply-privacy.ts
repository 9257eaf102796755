import { canonicalJson } from '../../canonical-json.js';
import { isPlainObject } from '../../plain-object.js';
import type { ColumnAction, TablePrivacy } from '../privacy/privacy-policy.js';

/** A value kept in `_extra` has no fixed type: text is hashed as it is, anything else as its canonical JSON. */
function hashAny(value: unknown, privacy: TablePrivacy): string {
  return privacy.hash(typeof value === 'string' ? value : canonicalJson(value));
}

/** Hashes or drops the fields of `fields` (an `_extra` object or a raw record) that hold a policy column's value. */
function scrubFields(fields: Record<string, unknown>, names: ReadonlyMap<string, ColumnAction>, privacy: TablePrivacy) {
  for (const [name, action] of names) {
    if (!Object.hasOwn(fields, name)) continue;
    if (action === 'drop') delete fields[name];
    else fields[name] = hashAny(fields[name], privacy);
  }
}

/**
 * The privacy step of normalization, on a row already shaped by its table spec:
 * `hash` replaces a value with its keyed HMAC-SHA-256 (each element of a string
 * array, so array membership still joins), `drop` nulls it, and neither leaves
 * the original in `_extra` (a value of the wrong type, or an embedded object
 * without its key, is hashed or dropped there too). `_extra: drop` nulls `_extra`.
 * Runs before the row is serialized: nothing after it sees the original.
 */
export function applyPrivacy(row: Record<string, unknown>, privacy: TablePrivacy): void {
  for (const column of privacy.columns) {
    const value = row[column.name];
    if (value === null || value === undefined) continue;
    if (column.action === 'drop') row[column.name] = null;
    else if (column.array) row[column.name] = (value as string[]).map((item) => privacy.hash(item));
    else row[column.name] = privacy.hash(value as string);
  }
  const extra = row._extra;
  if (!isPlainObject(extra)) return;
  if (privacy.extra === 'drop') {
    row._extra = null;
    return;
  }
  scrubFields(extra, privacy.extraNames, privacy);
}

/**
 * A rejected record's `raw` under the policy: fields of policy columns hashed or
 * dropped; with `_extra: drop`, only the table's own columns are kept (an unknown
 * field, or an embedded object, could hold anything), and a record that is not an
 * object at all is not kept.
 */
export function privateRaw(raw: unknown, privacy: TablePrivacy): unknown {
  if (!isPlainObject(raw)) return privacy.extra === 'drop' ? null : raw;
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (privacy.extra === 'keep' || privacy.columnNames.has(name)) fields[name] = value;
  }
  scrubFields(fields, privacy.extraNames, privacy);
  return fields;
}
