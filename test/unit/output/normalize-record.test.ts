import { describe, expect, it } from 'vitest';
import { normalizeRecord, type RowMeta } from '../../../src/output/normalize/normalize-record.js';
import { ROW_SCHEMAS } from '../../../src/output/rows/row-schemas.js';
import { METADATA_COLUMNS, TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { sampleRecord } from '../../integration/output/support/sample-records.js';
import { assertValidRow, loadSchemaValidators } from '../../integration/output/support/schema-validator.js';

const meta: RowMeta = { runId: '20261122T101500Z-abc123', syncedAt: '2026-11-22T10:15:01.000Z', account: 'acme' };
const validators = loadSchemaValidators();

function rowOf(table: TableName, record: unknown, m: RowMeta = meta): Record<string, unknown> {
  const result = normalizeRecord(table, record, m);
  if (!result.ok) throw new Error(`rejected: ${result.reason}`);
  return result.row;
}

describe('normalizeRecord', () => {
  it.each(TABLE_NAMES)('%s: a full record gives every column in order, valid against schemas/ and zod', (table) => {
    const row = rowOf(table, sampleRecord(table, 7));
    const columns = TABLE_SPECS[table].columns.map((c) => c.name);
    expect(Object.keys(row)).toEqual([...columns, ...METADATA_COLUMNS]);
    expect(row._extra).toBeNull();
    expect(row._deleted).toBe(false);
    expect(row._run_id).toBe(meta.runId);
    expect(row._synced_at).toBe(meta.syncedAt);
    assertValidRow(validators, table, row);
    expect(ROW_SCHEMAS[table].safeParse(row).success).toBe(true);
  });

  it('maps embedded contact and last_message to foreign keys and consumes them', () => {
    const record = sampleRecord('conversations', 3);
    const row = rowOf('conversations', record);
    expect(row.contact_id).toBe((record.contact as { id: string }).id);
    expect(row.last_message_id).toBe((record.last_message as { id: string }).id);
    expect(row).not.toHaveProperty('contact');
    expect(row._extra).toBeNull();
  });

  it('keeps the fields of an embedded object no column reads in _extra, under its name (account)', () => {
    const me = {
      id: 'u1',
      name: 'Ada',
      email: 'ada@example.com',
      role: 'Account Owner',
      presence: 'online',
      organization: { id: 'o1', company: 'Acme', slug: 'acme', permissions: { tags: ['write'] } },
      badge_counts: { mine: 2 },
    };
    const row = rowOf('account', me);
    expect(row).toMatchObject({
      slug: 'acme',
      company: 'Acme',
      user_id: 'u1',
      user_name: 'Ada',
      user_role: 'Account Owner',
    });
    expect(row._extra).toEqual({
      presence: 'online',
      badge_counts: { mine: 2 },
      organization: { id: 'o1', permissions: { tags: ['write'] } },
    });
    // Read for its columns and nothing left over: nothing of it in _extra.
    expect(rowOf('account', { ...me, organization: { company: 'Acme', slug: 'acme' } })._extra).not.toHaveProperty(
      'organization',
    );
  });

  it('keys account by the organization slug: rejected without one, a tombstone holds the slug alone', () => {
    const result = normalizeRecord('account', { id: 'u1', organization: { company: 'Acme' } }, meta);
    expect(result).toMatchObject({ ok: false, reason: 'missing primary key slug' });
    const tombstone = rowOf('account', { slug: 'acme' }, { ...meta, deleted: true });
    expect(tombstone).toMatchObject({ slug: 'acme', company: null, user_id: null, _deleted: true, _extra: null });
  });

  it('writes timestamps as UTC ISO-8601 with Z, viewed_at included', () => {
    const row = rowOf('conversations', {
      id: 'c1',
      created_at: '2026-03-01T10:00:00+02:00',
      updated_at: '2026-03-01 08:00:00',
      closed_at: '2026-03-01',
      viewed_at: '2026-03-01 10:00:00',
    });
    expect(row.created_at).toBe('2026-03-01T08:00:00.000Z');
    expect(row.updated_at).toBe('2026-03-01T08:00:00.000Z');
    expect(row.closed_at).toBe('2026-03-01T00:00:00.000Z');
    expect(row.viewed_at).toBe('2026-03-01T10:00:00.000Z');
  });

  it('writes the source field extra as source_extra, beside and apart from _extra', () => {
    const row = rowOf('messages', { id: 'm1', extra: { channel: 'email' }, surprise: 1 });
    expect(row.source_extra).toEqual({ channel: 'email' });
    expect(row._extra).toEqual({ surprise: 1 });
    expect(row).not.toHaveProperty('extra');
    expect(rowOf('users', { id: 'u1', source_extra: { preferences: {} } }).source_extra).toEqual({ preferences: {} });
    expect(rowOf('thread_events', { id: 'e1', extra: 'x' })._extra).toEqual({
      source_extra: 'x',
      _notes: ['source_extra: expected object, got string'],
    });
  });

  it('fills absent columns with null and puts unknown fields in _extra', () => {
    const row = rowOf('tags', { id: 't1', name: 'vip', created_at: '2026-01-01T00:00:00Z', organization_id: 'o1' });
    expect(row).toMatchObject({ id: 't1', inbox_id: null, name: 'vip', color: null });
    expect(row._extra).toEqual({ created_at: '2026-01-01T00:00:00Z', organization_id: 'o1' });
    assertValidRow(validators, 'tags', row);
  });

  it('keeps a value of the wrong type in _extra with a note and nulls its column', () => {
    const result = normalizeRecord(
      'conversations',
      { id: 'c1', ticket_id: '012', is_spam: 'no', agents: ['a', 1], created_at: 'yesterday', contact: 'Dana' },
      meta,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.row).toMatchObject({
      ticket_id: null,
      is_spam: null,
      agents: null,
      created_at: null,
      contact_id: null,
    });
    expect(result.row._extra).toEqual({
      ticket_id: '012',
      is_spam: 'no',
      agents: ['a', 1],
      created_at: 'yesterday',
      contact: 'Dana',
      _notes: [
        'ticket_id: expected integer, got string',
        'is_spam: expected boolean, got string',
        'created_at: expected ISO-8601 date-time, got string',
        'agents: expected array of strings, got array',
        'contact: expected object, got string',
      ],
    });
    expect(result.extraFields).toBe(5);
    assertValidRow(validators, 'conversations', result.row);
  });

  it('rejects a record without a usable primary key, with the reason', () => {
    expect(normalizeRecord('conversations', { subject: 'x' }, meta)).toEqual({
      ok: false,
      reason: 'missing primary key id',
    });
    expect(normalizeRecord('tags', { id: 42 }, meta)).toEqual({
      ok: false,
      reason: 'primary key id: expected string, got number',
    });
    expect(normalizeRecord('tags', { id: '' }, meta)).toEqual({ ok: false, reason: 'primary key id is empty' });
    expect(normalizeRecord('report_productivity_daily', { inbox_id: 'i', date: '2026-02-30' }, meta)).toEqual({
      ok: false,
      reason: 'primary key date: expected date (YYYY-MM-DD), got string',
    });
    expect(normalizeRecord('tags', ['not', 'an', 'object'], meta)).toEqual({
      ok: false,
      reason: 'expected a JSON object, got array',
    });
  });

  it('keeps integers beyond 2^53 exact: a BIGINT column within 64 bits, free-form columns and _extra at any size', () => {
    const record = {
      id: 'c1',
      ticket_id: 9007199254740993n,
      messages_count: -9223372036854775808n,
      custom_field_values: { legacy: [18446744073709551621n, -9007199254740993n], n: 1 },
      unknown_field: { a: 123456789012345678901234567890n, b: 9223372036854775808n },
    };
    const row = rowOf('conversations', record);
    expect(row.ticket_id).toBe(9007199254740993n);
    expect(row.messages_count).toBe(-9223372036854775808n);
    expect(row.custom_field_values).toEqual({ legacy: [18446744073709551621n, -9007199254740993n], n: 1 });
    expect(row._extra).toEqual({ unknown_field: { a: 123456789012345678901234567890n, b: 9223372036854775808n } });
    // The row is valid for the zod row schema (an int column takes a bigint within 64 bits) and the JSON Schema files.
    expect(ROW_SCHEMAS.conversations.safeParse(row).success).toBe(true);
    expect(ROW_SCHEMAS.conversations.safeParse({ ...row, ticket_id: 9223372036854775808n }).success).toBe(false);
    const thread = rowOf('thread_events', {
      id: 'e1',
      conversation_id: 'c1',
      position: 2n ** 62n,
      extra: { n: 2n ** 64n },
    });
    expect([thread.position, thread.source_extra]).toEqual([2n ** 62n, { n: 2n ** 64n }]);
  });

  it('rejects a record with an integer its column cannot hold, naming the column and the digits, never rounding', () => {
    expect(normalizeRecord('conversations', { id: 'c1', ticket_id: 18446744073709551621n }, meta)).toEqual({
      ok: false,
      reason: 'ticket_id: 18446744073709551621 is beyond what a signed 64-bit integer (BIGINT) holds',
    });
    expect(normalizeRecord('attachments', { id: 'a1', size: -9223372036854775809n }, meta)).toEqual({
      ok: false,
      reason: 'size: -9223372036854775809 is beyond what a signed 64-bit integer (BIGINT) holds',
    });
    const report = { inbox_id: 'i', date: '2026-02-03', avg_replies_to_resolution: 9007199254740993n };
    expect(normalizeRecord('report_productivity_daily', report, meta)).toEqual({
      ok: false,
      reason: 'avg_replies_to_resolution: 9007199254740993 is beyond what a double (DOUBLE) holds exactly',
    });
    // An integer a double equals exactly is a number in a number column.
    const exact = rowOf('report_productivity_daily', { ...report, avg_replies_to_resolution: 2n ** 60n });
    expect(exact.avg_replies_to_resolution).toBe(2 ** 60);
    // A number that is not a safe integer came with a fraction or an exponent: a double, not an integer as sent.
    const double = rowOf('conversations', { id: 'c2', ticket_id: 1e20 });
    expect([double.ticket_id, double._extra]).toEqual([
      null,
      { ticket_id: 1e20, _notes: ['ticket_id: expected integer, got number'] },
    ]);
  });

  it('writes a tombstone: primary key set, every other column null, _deleted true', () => {
    const row = rowOf('conversations', { id: 'gone', subject: 'ignored' }, { ...meta, deleted: true });
    const { id, _deleted, _synced_at, _run_id, _extra, _account, ...rest } = row;
    // The account is part of the key: a tombstone names it too.
    expect({ id, _deleted, _extra, _account }).toEqual({ id: 'gone', _deleted: true, _extra: null, _account: 'acme' });
    expect(Object.values(rest).every((v) => v === null)).toBe(true);
    assertValidRow(validators, 'conversations', row);
    const report = rowOf(
      'report_productivity_daily',
      { inbox_id: 'i1', date: '2026-03-01' },
      { ...meta, deleted: true },
    );
    expect(report).toMatchObject({
      inbox_id: 'i1',
      date: '2026-03-01',
      assigned_conversations: null,
      _deleted: true,
      _account: 'acme',
    });
  });

  it('keys a thread event by its message id when the stream gave none, and rejects one without any key', () => {
    const withMessage = rowOf('thread_events', sampleRecord('thread_events', 2));
    expect(withMessage.id).toBe(withMessage.message_id);
    const keyed = rowOf('thread_events', {
      id: 'evt_0123',
      conversation_id: 'c1',
      position: 4,
      event_type: 'status_changed',
      event: null,
      actor: { type: 'user', id: 'u1', name: 'Sam' },
      extra: { from: 'Active', to: 'Closed' },
    });
    expect(keyed).toMatchObject({ id: 'evt_0123', message_id: null, _extra: null });
    // System events are keyed by the stream (src/streams/conversations/thread-records.ts); without a key the row is rejected.
    const system = { conversation_id: 'c1', position: 2, event_type: 'status_changed', event: null };
    expect(normalizeRecord('thread_events', system, meta)).toEqual({ ok: false, reason: 'missing primary key id' });
  });

  it('does not put a message’s attachments in _extra (they have their own table)', () => {
    const row = rowOf('messages', sampleRecord('messages', 1));
    expect(row._extra).toBeNull();
  });

  it('keeps dates as written and reads a date-time in a date column by its date part', () => {
    const row = rowOf('holidays', { id: 'h', start_date: '2027-01-01T00:00:00+05:00', end_date: '2027-13-01' });
    expect(row.start_date).toBe('2027-01-01');
    expect(row.end_date).toBeNull();
    expect(row._extra).toEqual({
      end_date: '2027-13-01',
      _notes: ['end_date: expected date (YYYY-MM-DD), got string'],
    });
  });

  it('keeps a source field named _notes beside the notes', () => {
    const row = rowOf('tags', { id: 't', color: 5, _notes: 'mine' });
    expect(row._extra).toEqual({ '_notes (field)': 'mine', color: 5, _notes: ['color: expected string, got number'] });
  });
});

describe('embedded objects without their key', () => {
  it('keeps the whole object in _extra with a note instead of dropping it', () => {
    const result = normalizeRecord('conversations', { id: 'c1', contact: { name: 'Dana' } }, meta);
    expect(result.ok).toBe(true);
    const row = (result as { row: Record<string, unknown> }).row;
    expect(row.contact_id).toBeNull();
    expect(row._extra).toEqual({ contact: { name: 'Dana' }, _notes: ['contact: embedded object has no id'] });
  });
});
