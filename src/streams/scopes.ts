import type { StreamName } from '../config/schema.js';
import { CONVERSATION_SCOPES } from '../kv-state.js';

/**
 * State scopes the streams keep (docs/operations.md). Every value is written
 * through a staged StateChange, so it is committed only with the rows it
 * describes. The thread scope holds ONE packed value per conversation (not one
 * key per message) to keep the state small for large accounts; the three
 * per-conversation scopes are the state's CONVERSATION_SCOPES.
 */
export const SCOPES = {
  /** conversation id → fingerprint of the conversation list item (embedded contact reduced to its id). */
  conversations: CONVERSATION_SCOPES.fingerprint,
  /** contact id → fingerprint of the embedded contact. */
  contacts: 'fp:contacts',
  /**
   * conversation id → the conversation fingerprint at which its thread was
   * fetched. Small, read for every listed conversation: equal to the current
   * fingerprint means no request.
   */
  threadAt: CONVERSATION_SCOPES.threadAt,
  /**
   * conversation id → ThreadState, packed (row key → hash maps, see conversations/thread-state.ts).
   * Large; read one key at a time, only for conversations whose thread is fetched
   * or deleted, so it is never loaded whole.
   */
  thread: CONVERSATION_SCOPES.thread,
  /**
   * `conversations` → where a recent-first backfill stands (JSON, see
   * conversations/backfill-state.ts); absent when none is pending.
   */
  backfill: 'scan:backfill',
  tags: 'fp:tags',
  inboxes: 'fp:inboxes',
  users: 'fp:users',
  business_hours: 'fp:business_hours',
  holidays: 'fp:holidays',
} as const;

/** What one key of a dimension stream's scope stands for, in `state show`. */
const UNITS = {
  tags: 'tags',
  inboxes: 'inboxes',
  users: 'teammates',
  business_hours: 'profiles',
  holidays: 'holidays',
} as const;

/** date (YYYY-MM-DD) → fingerprint of that day's productivity report, one scope per inbox. */
export function reportScope(inboxId: string): string {
  return `report_day:${inboxId}`;
}

export interface StreamScopes {
  /** kv_state scopes the stream owns entirely. */
  scopes: string[];
  /** Prefixes of scopes it owns (one scope per inbox). */
  prefixes: string[];
  /**
   * What `state show` counts for the stream, in the stream's own unit: the keys
   * of one scope (or of the scopes under one prefix). Messages count threads,
   * since the state keeps one entry per conversation's thread, not per message.
   */
  counted: { scope: string; unit: string } | { prefix: string; unit: string };
}

/**
 * The committed state of each stream, for `state show|reset --stream`: deleting
 * these scopes makes the next run treat the stream like a first run (write
 * every row again; tombstone nothing it no longer remembers).
 */
export function streamScopes(stream: StreamName): StreamScopes {
  switch (stream) {
    case 'conversations':
      return {
        scopes: [SCOPES.conversations, SCOPES.backfill],
        prefixes: [],
        counted: { scope: SCOPES.conversations, unit: 'conversations' },
      };
    case 'messages':
      return {
        scopes: [SCOPES.threadAt, SCOPES.thread],
        prefixes: [],
        counted: { scope: SCOPES.threadAt, unit: 'threads' },
      };
    case 'contacts':
      return { scopes: [SCOPES.contacts], prefixes: [], counted: { scope: SCOPES.contacts, unit: 'contacts' } };
    case 'reports':
      return { scopes: [], prefixes: ['report_day:'], counted: { prefix: 'report_day:', unit: 'inbox-days' } };
    default:
      return { scopes: [SCOPES[stream]], prefixes: [], counted: { scope: SCOPES[stream], unit: UNITS[stream] } };
  }
}
