import type { KvStore } from './kv-store.js';

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
export function saveRateSpend(kv: Pick<KvStore, 'put'>, origin: string, spend: RecordedRateSpend): void {
  kv.put(SCOPE, KEY, JSON.stringify({ origin, ...spend }));
}

/**
 * The last record of a run against `origin`, or undefined when there is none, it was of another
 * origin, or it cannot be read (a record is a hint, never a reason to fail).
 */
export function readRateSpend(kv: Pick<KvStore, 'get'>, origin: string): RecordedRateSpend | undefined {
  const value = kv.get(SCOPE, KEY);
  if (typeof value !== 'string') return undefined;
  try {
    const { origin: of, ...v } = JSON.parse(value) as RecordedRateSpend & { origin?: string };
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
