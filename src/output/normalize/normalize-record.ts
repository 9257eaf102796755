import { stringifyJsonExact } from '../../exact-json/stringify-json-exact.js';
import { isPlainObject } from '../../plain-object.js';
import type { TablePrivacy } from '../privacy/privacy-policy.js';
import { METADATA_COLUMNS, TABLE_SPECS } from '../rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../tables.js';
import { applyPrivacy, privateRaw } from './apply-privacy.js';
import { coerceValue, EXPECTED, INVALID, jsonTypeOf, OUT_OF_RANGE } from './coerce-value.js';
import { coerceLossless } from './lossless-coercion.js';

export interface RowMeta {
  runId: string;
  /** ISO-8601 UTC time the row is written (`_synced_at`). */
  syncedAt: string;
  /** The account the row comes from (`_account`): the configured name, else the organization slug. */
  account: string;
  /** Tombstone: primary key only, every other column null, `_deleted: true`. */
  deleted?: boolean;
}

export type NormalizeResult =
  | { ok: true; row: Record<string, unknown>; extraFields: number; coercedValues: number }
  /** `raw`, set under a privacy policy: what the rejected output may keep of the record instead of the record. */
  | { ok: false; reason: string; raw?: unknown };

interface ColumnPlan {
  name: string;
  kind: (typeof TABLE_SPECS)[TableName]['columns'][number]['kind'];
  isKey: boolean;
  /** For `from: "contact.id"`: root "contact", field "id"; for `from: "extra"`: root "extra" alone. */
  root?: string;
  field?: string;
}

interface TablePlan {
  columns: ColumnPlan[];
  /** Every column and metadata column, null: rows are copies of it (see buildPlan). */
  template: Record<string, null>;
  known: Set<string>;
  /** Embedded objects read for some columns, with the fields those columns read: the rest goes to `_extra`. */
  rests: Array<{ root: string; read: Set<string> }>;
  prepare?: (record: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * Thread events have no id of their own (API document, "Thread event"). The
 * stream keys them (src/streams/conversations/thread-records.ts: the message id, or a hash for
 * system events); a record that still has none but carries its message gets the
 * message id, and anything else is rejected for its missing key like any row.
 */
function prepareThreadEvent(record: Record<string, unknown>): Record<string, unknown> {
  if (record.id !== undefined && record.id !== null) return record;
  const event = record.event;
  if (isPlainObject(event) && typeof event.id === 'string') return { ...record, id: event.id };
  return record;
}

function buildPlan(table: TableName): TablePlan {
  const spec = TABLE_SPECS[table];
  const keys = new Set<string>(spec.primaryKey);
  const columns = spec.columns.map((c): ColumnPlan => {
    const [root, field] = c.from ? c.from.split('.') : [];
    return { name: c.name, kind: c.kind, isKey: keys.has(c.name), root, field };
  });
  const known = new Set([...spec.columns.map((c) => c.name), ...spec.consumes]);
  // Copying a template that already has every key, in order, keeps rows in V8's fast
  // object mode; adding ~40 keys one by one turns them into slow dictionaries, and
  // JSON.stringify of those costs about twice as much.
  const names = [...spec.columns.map((c) => c.name), ...METADATA_COLUMNS];
  const template = Object.fromEntries(names.map((n) => [n, null])) as Record<string, null>;
  const rests = spec.keepsRest.map((root) => ({
    root,
    read: new Set(columns.flatMap((c) => (c.root === root && c.field !== undefined ? [c.field] : []))),
  }));
  return { columns, template, known, rests, prepare: table === 'thread_events' ? prepareThreadEvent : undefined };
}

const PLANS = Object.fromEntries(TABLE_NAMES.map((t) => [t, buildPlan(t)])) as Record<TableName, TablePlan>;

/** Where wrong-typed values and unknown fields are collected for one row. */
class Extra {
  fields: Record<string, unknown> | undefined;
  notes: string[] | undefined;
  count = 0;

  keep(name: string, value: unknown): void {
    this.fields ??= {};
    // `_notes` is where notes go; a source field of that name is kept beside it.
    const key = name === '_notes' ? '_notes (field)' : name;
    this.fields[key] = typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
    this.count++;
  }

  note(name: string, kind: ColumnPlan['kind'], value: unknown): void {
    this.explain(name, value, `expected ${EXPECTED[kind]}, got ${jsonTypeOf(value)}`);
  }

  explain(name: string, value: unknown, why: string): void {
    this.keep(name, value);
    this.notes ??= [];
    this.notes.push(`${name}: ${why}`);
  }

  holds(name: string): boolean {
    return this.fields !== undefined && Object.hasOwn(this.fields, name);
  }

  result(): Record<string, unknown> | null {
    if (this.fields && this.notes) this.fields._notes = this.notes;
    return this.fields ?? null;
  }
}

function readColumn(record: Record<string, unknown>, column: ColumnPlan, extra: Extra): unknown {
  if (column.root === undefined) return record[column.name];
  const source = record[column.root];
  if (source === undefined || source === null) return record[column.name];
  if (column.field === undefined) return source; // a plain rename (`from: "extra"`)
  if (isPlainObject(source)) {
    const value = source[column.field!];
    // The embedded object is consumed through its key; without one it would vanish, so keep it whole.
    if (value === undefined || value === null)
      extra.explain(column.root, source, `embedded object has no ${column.field}`);
    return value;
  }
  extra.note(column.root, 'object', source);
  return null;
}

/** The fields of an embedded object that no column read, kept in `_extra` under the object's name. */
function keepRest(source: unknown, rest: TablePlan['rests'][number], extra: Extra): void {
  // Not an object, or kept whole already (readColumn explained it): nothing more to keep.
  if (!isPlainObject(source) || extra.holds(rest.root)) return;
  const left = Object.entries(source).filter(([field, value]) => !rest.read.has(field) && value !== undefined);
  if (left.length > 0) extra.keep(rest.root, Object.fromEntries(left));
}

function rejectKey(column: ColumnPlan, value: unknown): { ok: false; reason: string } {
  if (value === undefined || value === null) return { ok: false, reason: `missing primary key ${column.name}` };
  if (value === '') return { ok: false, reason: `primary key ${column.name} is empty` };
  return {
    ok: false,
    reason: `primary key ${column.name}: expected ${EXPECTED[column.kind]}, got ${jsonTypeOf(value)}`,
  };
}

/** What each column kind's warehouse type is, for the reason a value beyond it is rejected. */
const HOLDS: Partial<Record<ColumnPlan['kind'], string>> = {
  int: 'a signed 64-bit integer (BIGINT) holds',
  number: 'a double (DOUBLE) holds exactly',
};

/**
 * A value of the column's kind that its type cannot hold: rejected rather than
 * rounded or kept beside an empty column, with the column and the value (its
 * digits, as received) named.
 */
function rejectOutOfRange(column: ColumnPlan, value: unknown): { ok: false; reason: string } {
  return {
    ok: false,
    reason: `${column.name}: ${stringifyJsonExact(value)} is beyond what ${HOLDS[column.kind] ?? EXPECTED[column.kind]}`,
  };
}

/**
 * Raw API object (plus the context fields a stream adds) → one row of `table`:
 * every column present (null when absent), timestamps UTC ISO-8601 `Z`, dates
 * `YYYY-MM-DD`, unknown fields and wrong-typed values in `_extra` (with `_notes`).
 * A record without a usable primary key is not a row: `{ok: false, reason}`, and
 * the caller writes it to the rejected output; nor is a record with an integer
 * its column's type cannot hold (beyond a BIGINT, or inexact in a double).
 * Nothing is dropped silently, except what a privacy policy (`privacy`, applied
 * last: apply-privacy.ts) hashes or drops.
 */
export function normalizeRecord(
  table: TableName,
  input: unknown,
  meta: RowMeta,
  privacy?: TablePrivacy,
): NormalizeResult {
  const result = shapeRecord(table, input, meta);
  if (privacy === undefined) return result;
  if (result.ok) applyPrivacy(result.row, privacy);
  else result.raw = privateRaw(input, privacy);
  return result;
}

function shapeRecord(table: TableName, input: unknown, meta: RowMeta): NormalizeResult {
  if (!isPlainObject(input)) return { ok: false, reason: `expected a JSON object, got ${jsonTypeOf(input)}` };
  const plan = PLANS[table];
  const record = plan.prepare ? plan.prepare(input) : input;
  const extra = new Extra();
  const row: Record<string, unknown> = { ...plan.template };
  let coerced = 0;
  for (const column of plan.columns) {
    if (meta.deleted && !column.isKey) continue;
    const raw = readColumn(record, column, extra);
    if (raw === undefined || raw === null) {
      if (column.isKey) return rejectKey(column, raw);
      continue;
    }
    let value = coerceValue(column.kind, raw);
    if (value === INVALID) {
      value = coerceLossless(column.kind, raw);
      if (value !== INVALID && value !== OUT_OF_RANGE) coerced += 1;
    }
    if (value === OUT_OF_RANGE) return rejectOutOfRange(column, raw);
    if (value === INVALID || (column.isKey && value === '')) {
      if (column.isKey) return rejectKey(column, raw);
      extra.note(column.name, column.kind, raw);
    } else {
      row[column.name] = value;
    }
  }
  if (!meta.deleted) {
    for (const key in record) {
      if (!plan.known.has(key) && record[key] !== undefined) extra.keep(key, record[key]);
    }
    for (const rest of plan.rests) keepRest(record[rest.root], rest, extra);
  }
  row._synced_at = meta.syncedAt;
  row._run_id = meta.runId;
  row._deleted = meta.deleted === true;
  row._extra = extra.result();
  row._account = meta.account;
  return { ok: true, row, extraFields: extra.count, coercedValues: coerced };
}
