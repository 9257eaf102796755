import { isPackedHashMaps, packHashMaps, unpackHashMaps } from '../../packed-hash-maps.js';
import { isPlainObject } from '../../plain-object.js';
import { SCOPES } from '../scopes.js';
import type { StateReader, StateValue } from '../types.js';

/** The tables a conversation's thread feeds, with their one-letter key in ThreadState. */
export const THREAD_TABLES = { thread_events: 'e', messages: 'm', attachments: 'a' } as const;
export type ThreadTable = keyof typeof THREAD_TABLES;

/**
 * What is committed about the rows of one conversation's thread, kept as ONE
 * value (scope fp:thread, key = conversation id) so the state grows by one
 * entry per conversation, not per message: for thread_events (`e`), messages
 * (`m`) and attachments (`a`), row key → short content hash. Only rows whose
 * hash changed are emitted; keys that disappeared from the thread are
 * tombstoned. The fingerprint the thread was fetched at lives beside it, in
 * scope fp:thread_at, and both are committed by the same checkpoint.
 *
 * Committed as bytes (packed-hash-maps.ts: about 26 bytes a row, 11 for a
 * message row beside its event), not JSON (about 55): at a million
 * conversations this value is most of the state. States written as JSON are
 * packed by the state's migration; a JSON value is still read.
 */
export interface ThreadState {
  e: Record<string, string>;
  m: Record<string, string>;
  a: Record<string, string>;
}

/** Length of the per-row hashes inside a ThreadState (72 bits, 9 bytes packed; see fingerprint()). */
export const ROW_HASH_LENGTH = 12;

export function emptyThreadState(): ThreadState {
  return { e: {}, m: {}, a: {} };
}

/** A row key → hash map, as written by this module (values are trusted to be hashes). */
function isHashMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value);
}

function decode(raw: StateValue): unknown {
  if (typeof raw === 'string') return JSON.parse(raw);
  return isPackedHashMaps(raw) ? unpackHashMaps(raw) : JSON.parse(Buffer.from(raw).toString('utf8'));
}

/**
 * Reads a committed value (packed, or JSON as written before). Anything
 * unreadable counts as "nothing known", so the worst case is re-emitted rows
 * (merged away downstream), never a lost change.
 */
export function parseThreadState(raw: StateValue | undefined): ThreadState | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = decode(raw) as Partial<ThreadState>;
    if (!isHashMap(value.e) || !isHashMap(value.m) || !isHashMap(value.a)) return undefined;
    return { e: value.e, m: value.m, a: value.a };
  } catch {
    return undefined;
  }
}

/** The value committed for a thread: its maps packed, events first (a message row's key refers back to its event's). */
export function serializeThreadState(state: ThreadState): Uint8Array {
  return packHashMaps({ e: state.e, m: state.m, a: state.a });
}

/** The committed thread maps of a conversation, read by key (never loading the whole scope). */
export function readThreadState(
  state: StateReader,
  conversationId: string,
): { raw?: StateValue; thread?: ThreadState } {
  const raw = state.lookup ? state.lookup(SCOPES.thread, conversationId) : state.get(SCOPES.thread, conversationId);
  return { raw, thread: parseThreadState(raw) };
}

/** The hash map of a ThreadState for a table. */
export function hashesOf(state: ThreadState, table: ThreadTable): Record<string, string> {
  return state[THREAD_TABLES[table]];
}
