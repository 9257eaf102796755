import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/canonical-json.js';
import {
  diffThread,
  systemEventKey,
  threadRecords,
  threadTombstones,
} from '../../../../src/streams/conversations/thread-records.js';

const actor = { type: 'system', id: null, name: null };
const message = (id: string, attachments: unknown[] = []) => ({
  id,
  record_type: 'message',
  text_body: id,
  attachments,
});
const thread = () => [
  {
    event_type: 'message',
    event: message('m1', [{ id: 'a1', name: 'x.txt', size: 3 }]),
    actor: { type: 'contact', id: 'c1', name: null },
    extra: {},
  },
  { event_type: 'status_changed', event: null, actor, extra: { to: 'Pending' } },
  { event_type: 'note', event: { ...message('n1'), record_type: 'note' }, actor, extra: {} },
  { event_type: 'status_changed', event: null, actor, extra: { to: 'Pending' } },
];

describe('threadRecords', () => {
  it('keys events by message id, system events by a hash plus an occurrence number; positions in thread order', () => {
    const rows = threadRecords('conv-1', thread());
    const events = rows.filter((r) => r.table === 'thread_events').map((r) => r.record);
    const systemKey = systemEventKey('conv-1', thread()[1] as never, 1);
    expect(events.map((e) => [e.id, e.position, e.message_id])).toEqual([
      ['m1', 0, 'm1'],
      [systemKey, 1, null],
      ['n1', 2, 'n1'],
      [`${systemKey}-2`, 3, null],
    ]);
    expect(events[1]).toEqual({
      id: systemKey,
      conversation_id: 'conv-1',
      position: 1,
      event_type: 'status_changed',
      message_id: null,
      actor,
      extra: { to: 'Pending' },
    });
    // The first occurrence's key: evt_ + 32 hex of sha256 over [conversation_id, event_type, actor, extra].
    const digest = createHash('sha256')
      .update(canonicalJson(['conv-1', 'status_changed', actor, { to: 'Pending' }]))
      .digest('hex');
    expect(systemKey).toBe(`evt_${digest.slice(0, 32)}`);
    expect(rows.filter((r) => r.table === 'messages').map((r) => [r.record.id, r.record.conversation_id])).toEqual([
      ['m1', 'conv-1'],
      ['n1', 'conv-1'],
    ]);
    expect(rows.find((r) => r.table === 'attachments')?.record).toEqual({
      id: 'a1',
      name: 'x.txt',
      size: 3,
      message_id: 'm1',
      conversation_id: 'conv-1',
    });
  });

  it('keeps an item that is not an object as a keyless record (rejected downstream, not lost)', () => {
    const rows = threadRecords('conv-1', ['garbage']);
    expect(rows).toEqual([
      { table: 'thread_events', hash: '', record: { conversation_id: 'conv-1', position: 0, raw: 'garbage' } },
    ]);
  });
});

describe('diffThread', () => {
  it('emits everything at first, nothing when unchanged, only changed rows and tombstones later', () => {
    const first = diffThread('conv-1', thread(), undefined, false);
    expect(first.rows).toHaveLength(4 + 2 + 1);
    expect(Object.keys(first.state.m)).toEqual(['m1', 'n1']);

    expect(diffThread('conv-1', thread(), first.state, false).rows).toEqual([]);
    expect(diffThread('conv-1', thread(), first.state, true).rows).toHaveLength(7);

    const edited = thread().slice(0, 3);
    (edited[0]!.event as { attachments: unknown[] }).attachments = [];
    (edited[2]!.event as { text_body: string }).text_body = 'edited';
    const later = diffThread('conv-1', edited, first.state, false);
    expect(later.rows.map((r) => [r.table, r.record.id, r.deleted ?? false])).toEqual([
      ['messages', 'n1', false],
      ['thread_events', `${systemEventKey('conv-1', thread()[1] as never, 1)}-2`, true],
      ['attachments', 'a1', true],
    ]);
  });

  it('a message row does not change when only its attachments do', () => {
    const first = diffThread('conv-1', thread(), undefined, false);
    const more = thread();
    (more[0]!.event as { attachments: unknown[] }).attachments.push({ id: 'a2', name: 'y' });
    expect(diffThread('conv-1', more, first.state, false).rows.map((r) => [r.table, r.record.id])).toEqual([
      ['attachments', 'a2'],
    ]);
  });

  it('tombstones every committed key of a thread', () => {
    const { state } = diffThread('conv-1', thread(), undefined, false);
    expect(threadTombstones(state).map((r) => `${r.table}:${r.record.id}:${r.deleted}`)).toHaveLength(4 + 2 + 1);
    expect(threadTombstones(undefined)).toEqual([]);
  });
});
