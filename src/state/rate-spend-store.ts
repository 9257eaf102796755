import type Database from 'better-sqlite3';

/**
 * What the last sync of this state spent of the server's rate window (the queue's own record,
 * kept here as it was given: the state knows nothing of how it is used). The next sync reads it
 * at its start and starts from what that one left (docs/rate-limits.md › Runs one after another).
 */
export interface RecordedRateSpend {
  windowMs: number;
  windowSource: 'configured' | 'learned' | 'assumed';
  lastStartAt: number;
  window?: { openedAfter?: number; openedBy: number; remaining: number; sent: number };
}

/**
 * A row of kv_state no stream owns (`state show` and `state reset` see only the streams'
 * scopes): one value, replaced by every record, so no schema change is needed.
 */
const SCOPE = 'rate_limit';
const KEY = 'last_spend';

/**
 * Records what a run spent against `origin` (the API it sent to: another deployment, another
 * limiter, whose windows the record says nothing of).
 */
export function saveRateSpend(db: Database.Database, origin: string, spend: RecordedRateSpend): void {
  db.prepare(
    'INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value',
  ).run(SCOPE, KEY, JSON.stringify({ origin, ...spend }));
}

/**
 * The last record of a run against `origin`, or undefined when there is none, it was of another
 * origin, or it cannot be read (a record is a hint, never a reason to fail).
 */
export function readRateSpend(db: Database.Database, origin: string): RecordedRateSpend | undefined {
  const row = db
    .prepare<[string, string], { value: string }>('SELECT value FROM kv_state WHERE scope = ? AND key = ?')
    .get(SCOPE, KEY);
  if (!row) return undefined;
  try {
    const { origin: of, ...v } = JSON.parse(row.value) as RecordedRateSpend & { origin?: string };
    if (of !== origin) return undefined;
    const finite = (n: unknown) => typeof n === 'number' && Number.isFinite(n);
    if (
      !finite(v.windowMs) ||
      !finite(v.lastStartAt) ||
      !['configured', 'learned', 'assumed'].includes(v.windowSource)
    ) {
      return undefined;
    }
    const w = v.window;
    if (
      w &&
      !(
        finite(w.openedBy) &&
        finite(w.remaining) &&
        finite(w.sent) &&
        (w.openedAfter === undefined || finite(w.openedAfter))
      )
    ) {
      return { windowMs: v.windowMs, windowSource: v.windowSource, lastStartAt: v.lastStartAt };
    }
    return v;
  } catch {
    return undefined;
  }
}
