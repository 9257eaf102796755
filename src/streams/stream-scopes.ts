import type { StreamName } from '../config/schema.js';
import { SCOPES } from './scopes.js';

export interface StreamScopes {
  /** kv_state scopes the stream owns entirely. */
  scopes: string[];
  /** Prefixes of scopes it owns (one scope per inbox). */
  prefixes: string[];
}

/**
 * The committed state of each stream, for `state show|reset --stream`: deleting
 * these scopes makes the next run treat the stream like a first run (write
 * every row again; tombstone nothing it no longer remembers).
 */
export function streamScopes(stream: StreamName): StreamScopes {
  switch (stream) {
    case 'conversations':
      return { scopes: [SCOPES.conversations], prefixes: [] };
    case 'messages':
      return { scopes: [SCOPES.threadAt, SCOPES.thread], prefixes: [] };
    case 'contacts':
      return { scopes: [SCOPES.contacts], prefixes: [] };
    case 'reports':
      return { scopes: [], prefixes: ['report_day:'] };
    default:
      return { scopes: [SCOPES[stream]], prefixes: [] };
  }
}
