import { type StreamName, streamDefinition } from '../catalog/catalog.js';
import type { StreamState } from '../catalog/stream-definition.js';
import { contacts } from '../catalog/streams/contacts.js';
import { conversations } from '../catalog/streams/conversations.js';
import { messages } from '../catalog/streams/messages.js';
import { reports } from '../catalog/streams/reports.js';

/**
 * The state scopes the conversation scan works with by name, as its three
 * streams declare them (src/catalog/streams/: what each holds is said there).
 * Every value is written through a staged StateChange, so it is committed only
 * with the rows it describes.
 */
export const SCOPES = {
  conversations: conversations.state.scope,
  contacts: contacts.state.scope,
  threadAt: messages.state.scope,
  thread: messages.state.also.thread,
  backfill: conversations.state.also.backfill,
  holes: conversations.state.also.holes,
} as const;

/** date (YYYY-MM-DD) → fingerprint of that day's productivity report, one scope per inbox. */
export function reportScope(inboxId: string): string {
  return `${reports.state.prefix}${inboxId}`;
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

/** The scope a stream's state counts (its only scope, for the full-refresh lists). */
export function scopeOf(state: StreamState): string {
  return 'scope' in state ? state.scope : state.prefix;
}

/**
 * The committed state of each stream, for `state show|reset --stream`, as its
 * declaration says: deleting these scopes makes the next run treat the stream
 * like a first run (write every row again; tombstone nothing it no longer remembers).
 */
export function streamScopes(stream: StreamName): StreamScopes {
  const state: StreamState = streamDefinition(stream).state;
  if ('prefix' in state) {
    return { scopes: [], prefixes: [state.prefix], counted: { prefix: state.prefix, unit: state.unit } };
  }
  return {
    scopes: [state.scope, ...Object.values(state.also ?? {})],
    prefixes: [],
    counted: { scope: state.scope, unit: state.unit },
  };
}
