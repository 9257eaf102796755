import type Database from 'better-sqlite3';
import type { RunStatus } from './run-store.js';
import { type RunTraffic, readRunTraffic } from './run-traffic-store.js';

/** A run as the state remembers it: its record, its stored summary, its requests per window. */
export interface RunHistoryEntry {
  run_id: string;
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  /** The summary stored when its manifest was written (absent for a run that failed or crashed). */
  summary: unknown;
  traffic?: RunTraffic;
}

/** The latest `limit` runs, newest first. */
export function readRunHistory(db: Database.Database, limit = 30): RunHistoryEntry[] {
  const rows = db
    .prepare<[number], Omit<RunHistoryEntry, 'summary' | 'traffic'> & { summary_json: string | null }>(
      `SELECT run_id, started_at, finished_at, status, summary_json
       FROM runs ORDER BY started_at DESC, run_id DESC LIMIT ?`,
    )
    .all(limit);
  const traffic = readRunTraffic(
    db,
    rows.map((r) => r.run_id),
  );
  return rows.map(({ summary_json, ...run }) => ({
    ...run,
    summary: summary_json === null ? null : (JSON.parse(summary_json) as unknown),
    ...(traffic.has(run.run_id) ? { traffic: traffic.get(run.run_id) } : {}),
  }));
}
