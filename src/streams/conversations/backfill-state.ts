import { committedValue } from '../committed.js';
import { SCOPES } from '../scopes.js';
import type { StateChange, StateReader } from '../types.js';

const KEY = 'conversations';

/**
 * Where a recent-first backfill stands, kept in state while one is pending
 * (docs/streams.md, "Recent-first first sync"). Staged with the rows it
 * describes: `next_page` moves only once every conversation of the pages
 * before it is committed.
 */
export interface BackfillRecord {
  /** The oldest-first list page the backfill reads next (a resumed run starts one page earlier). */
  next_page: number;
  /** When the first sync began (ISO 8601). */
  started_at: string;
  /**
   * false: the position of a first full sync (`first_sync: full`), kept only so
   * that a stopped one resumes at its page; it has no recent window to read
   * again. Absent in a recent-first backfill's record.
   */
  recent?: false;
}

/** The pending backfill as committed now, or undefined when none is pending (or its value is unreadable). */
export function readBackfill(state: StateReader): BackfillRecord | undefined {
  const raw = committedValue(state, SCOPES.backfill, KEY);
  if (typeof raw !== 'string') return undefined;
  try {
    const value = JSON.parse(raw) as Partial<BackfillRecord>;
    if (!Number.isSafeInteger(value.next_page) || (value.next_page as number) < 1) return undefined;
    const record: BackfillRecord = { next_page: value.next_page as number, started_at: String(value.started_at ?? '') };
    return value.recent === false ? { ...record, recent: false } : record;
  } catch {
    return undefined;
  }
}

/** The state change that records `record`, or ends the backfill (null). */
export function backfillChange(record: BackfillRecord | null): StateChange {
  return { scope: SCOPES.backfill, key: KEY, value: record === null ? null : JSON.stringify(record) };
}
