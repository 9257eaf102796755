import type Database from 'better-sqlite3';
import { type LoadLag, readLoadLag } from '../state/load-lag.js';
import type { LoadRecord, LoadRecords } from '../state/load-records.js';

/** One load target as the page and the metrics show it: its last load (none: never loaded) and its lag. */
export interface TargetStatus {
  /** The target, described without secrets. */
  target: string;
  last?: LoadRecord;
  lag: LoadLag;
}

/**
 * Every target this state's loads went into, with its lag behind the state's
 * manifests, and the configured one (`load.into`) when no load into it is
 * recorded yet. Read from the state and its load records only: the target
 * itself is never opened (a DuckDB file may be locked by a running load, a
 * PostgreSQL down).
 */
export function readWarehouseStatus(
  db: Database.Database,
  records: LoadRecords,
  configured: string | undefined,
): TargetStatus[] {
  const targets = Object.values(records).sort((a, b) => b.finished_at.localeCompare(a.finished_at));
  const shown: TargetStatus[] = targets.map((last) => ({ target: last.target, last, lag: readLoadLag(db, last) }));
  if (configured !== undefined && !records[configured]) {
    shown.unshift({ target: configured, lag: readLoadLag(db, undefined) });
  }
  return shown;
}

/** The lag in seconds: from the newest loaded manifest to the newest committed one; undefined when none is known loaded. */
export function lagSeconds(lag: LoadLag): number | undefined {
  if (lag.manifests === 0) return 0;
  if (!lag.newest_committed || !lag.newest_loaded) return undefined;
  return Math.max(0, (Date.parse(lag.newest_committed.finished_at) - Date.parse(lag.newest_loaded.finished_at)) / 1000);
}
