import { committedValue } from '../committed.js';
import { SCOPES } from '../scopes.js';
import type { StateChange, StateReader } from '../types.js';
import type { ListingHole } from './conversation-listing.js';

const KEY = 'conversations';

/**
 * Holes the last complete listing saw mid-list and no re-read filled
 * (docs/streams.md, "Completeness"), kept in state so that the next run
 * re-reads those positions first. Staged with the run's last rows.
 */
export interface HolesRecord {
  /** The order the positions count in (a full scan lists oldest first). */
  sort: 'oldest' | 'newest';
  holes: ListingHole[];
}

function isHole(value: unknown): value is ListingHole {
  const h = value as Partial<ListingHole> | null;
  return (
    typeof h === 'object' &&
    h !== null &&
    [h.from, h.to, h.missing].every((n) => Number.isSafeInteger(n) && (n as number) >= 1) &&
    (h.from as number) <= (h.to as number)
  );
}

/** The holes recorded by the last complete listing, or undefined when none were (or the value is unreadable). */
export function readHoles(state: StateReader): HolesRecord | undefined {
  const raw = committedValue(state, SCOPES.holes, KEY);
  if (typeof raw !== 'string') return undefined;
  try {
    const value = JSON.parse(raw) as Partial<HolesRecord>;
    const holes = Array.isArray(value.holes) ? value.holes.filter(isHole) : [];
    if (holes.length === 0 || (value.sort !== 'oldest' && value.sort !== 'newest')) return undefined;
    return { sort: value.sort, holes };
  } catch {
    return undefined;
  }
}

/** The state change that records this listing's holes, or clears the record (none left). */
export function holesChange(sort: HolesRecord['sort'], holes: readonly ListingHole[]): StateChange {
  const value =
    holes.length === 0
      ? null
      : JSON.stringify({ sort, holes: holes.map(({ from, to, missing }) => ({ from, to, missing })) });
  return { scope: SCOPES.holes, key: KEY, value };
}
