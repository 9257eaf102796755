import type { ApiObject } from '../../api/index.js';
import { canonicalHash } from '../../canonical-json.js';
import { isPlainObject } from '../../plain-object.js';
import { fingerprint } from '../fingerprint.js';
import { idOf } from '../id-of.js';
import type { EmittedRow } from '../types.js';
import {
  emptyThreadState,
  hashesOf,
  ROW_HASH_LENGTH,
  THREAD_TABLES,
  type ThreadState,
  type ThreadTable,
} from './thread-state.js';

/** A record built from a thread for one table, with its state key (absent when the API gave no id: emitted, never stored). */
interface ThreadRecord {
  table: ThreadTable;
  key?: string;
  hash: string;
  record: ApiObject;
}

/**
 * What of a value counts as its content for keys and change hashes: the value
 * itself, or (in the scan) the value with signed URLs' query strings cut off, so
 * an avatar URL signed anew on every read neither re-keys a system event nor
 * rewrites an unchanged row (docs/streams.md, "Threads").
 */
export type Stable = (value: unknown) => unknown;
const same: Stable = (value) => value;

/**
 * Key of a system event (event null): thread events have no id of their own
 * (API document, Thread event), so the key is a hash of what identifies the
 * event (docs/streams.md). Two identical system events in one thread (the same
 * actor moving a conversation to the same status twice) are told apart by
 * their occurrence number, counted in thread order: the second one is `<key>-2`.
 * The first occurrence's key is `evt_` + 32 hex digits of sha256 over the
 * canonical JSON of [conversation_id, event_type, actor, extra].
 */
export function systemEventKey(
  conversationId: string,
  item: ApiObject,
  occurrence: number,
  stable: Stable = same,
): string {
  // 32 hex digits: this key outlives runs (it is the row's primary key).
  const actor = stable(item.actor ?? null);
  const key = `evt_${canonicalHash([conversationId, item.event_type ?? null, actor, item.extra ?? null]).slice(0, 32)}`;
  return occurrence > 1 ? `${key}-${occurrence}` : key;
}

function messageRecords(conversationId: string, message: ApiObject, messageId: string | undefined): ThreadRecord[] {
  const record: ApiObject = { ...message, conversation_id: conversationId };
  // Attachments are rows of their own table; they do not change the message row.
  const { attachments, ...messageRow } = record;
  const rows: ThreadRecord[] = [
    { table: 'messages', key: messageId, hash: fingerprint(messageRow, ROW_HASH_LENGTH), record },
  ];
  if (!Array.isArray(attachments)) return rows;
  for (const attachment of attachments) {
    const row: ApiObject = {
      ...(isPlainObject(attachment) ? attachment : { value: attachment }),
      message_id: messageId ?? null,
      conversation_id: conversationId,
    };
    rows.push({ table: 'attachments', key: idOf(row), hash: fingerprint(row, ROW_HASH_LENGTH), record: row });
  }
  return rows;
}

/**
 * The records of one conversation's thread for the output tables, in thread
 * order: a thread_events record per event (position = its 0-based index), and
 * for events carrying a message (messages and notes) a messages record and its
 * attachments records. An item that is
 * not an object is kept as a keyless record so the normalizer rejects it with a
 * reason instead of it vanishing.
 */
export function threadRecords(
  conversationId: string,
  events: readonly unknown[],
  stable: Stable = same,
): ThreadRecord[] {
  const rows: ThreadRecord[] = [];
  const occurrences = new Map<string, number>();
  events.forEach((item, position) => {
    if (!isPlainObject(item)) {
      rows.push({ table: 'thread_events', hash: '', record: { conversation_id: conversationId, position, raw: item } });
      return;
    }
    const { event, ...rest } = item;
    const message = isPlainObject(event) ? event : undefined;
    const messageId = message ? idOf(message) : undefined;
    let key = messageId;
    if (key === undefined) {
      const base = systemEventKey(conversationId, item, 1, stable);
      const n = (occurrences.get(base) ?? 0) + 1;
      occurrences.set(base, n);
      key = systemEventKey(conversationId, item, n, stable);
    }
    const record: ApiObject = {
      ...rest,
      id: key,
      conversation_id: conversationId,
      position,
      message_id: messageId ?? null,
    };
    rows.push({ table: 'thread_events', key, hash: fingerprint(stable(record), ROW_HASH_LENGTH), record });
    if (message) rows.push(...messageRecords(conversationId, message, messageId));
  });
  return rows;
}

/** Tombstone rows for every key of a committed thread state (the conversation is gone). */
export function threadTombstones(previous: ThreadState | undefined): EmittedRow[] {
  if (!previous) return [];
  const rows: EmittedRow[] = [];
  for (const table of Object.keys(THREAD_TABLES) as ThreadTable[]) {
    for (const id of Object.keys(hashesOf(previous, table))) rows.push({ table, record: { id }, deleted: true });
  }
  return rows;
}

/**
 * The rows to emit for a freshly fetched thread against what was committed:
 * changed or new rows (every row with `fullRefresh`), tombstones for keys no
 * longer in the thread, and the state to commit with them.
 */
export function diffThread(
  conversationId: string,
  events: readonly unknown[],
  previous: ThreadState | undefined,
  fullRefresh: boolean,
  stable: Stable = same,
): { rows: EmittedRow[]; state: ThreadState } {
  const state = emptyThreadState();
  const rows: EmittedRow[] = [];
  for (const row of threadRecords(conversationId, events, stable)) {
    if (row.key === undefined) {
      rows.push({ table: row.table, record: row.record });
      continue;
    }
    hashesOf(state, row.table)[row.key] = row.hash;
    const hashes = previous ? hashesOf(previous, row.table) : undefined;
    const before = hashes && Object.hasOwn(hashes, row.key) ? hashes[row.key] : undefined;
    if (fullRefresh || before !== row.hash) rows.push({ table: row.table, record: row.record });
  }
  if (previous) {
    for (const table of Object.keys(THREAD_TABLES) as ThreadTable[]) {
      const now = hashesOf(state, table);
      for (const id of Object.keys(hashesOf(previous, table))) {
        if (!Object.hasOwn(now, id)) rows.push({ table, record: { id }, deleted: true });
      }
    }
  }
  return { rows, state };
}
