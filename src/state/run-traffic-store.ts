import type Database from 'better-sqlite3';

/** One run's requests per rate window, as the status page charts them. */
export interface RunTraffic {
  run_id: string;
  /** The window length the run's queue acted on, and where it came from. */
  window_ms: number;
  window_source: 'configured' | 'learned' | 'assumed';
  /** The run's share of each window: `requests_per_minute` scaled to the window. */
  limit_per_window: number;
  /** Requests and 429s per window, from the run's first request. */
  windows: Array<{ requests: number; rate_limited: number }>;
}

/** Runs whose traffic is kept: enough for any page's history, bounded whatever the schedule. */
export const TRAFFIC_KEPT_RUNS = 50;

/** Records a run's traffic (replacing any earlier record of it) and forgets all but the latest runs'. */
export function saveRunTraffic(db: Database.Database, traffic: RunTraffic): void {
  db.transaction(() => {
    db.prepare(
      `INSERT OR REPLACE INTO run_traffic (run_id, window_ms, window_source, limit_per_window, windows_json)
       VALUES (?, ?, ?, ?, ?)`,
    ).run(
      traffic.run_id,
      traffic.window_ms,
      traffic.window_source,
      traffic.limit_per_window,
      JSON.stringify(traffic.windows.map((w) => [w.requests, w.rate_limited])),
    );
    db.prepare(
      'DELETE FROM run_traffic WHERE run_id NOT IN (SELECT run_id FROM run_traffic ORDER BY run_id DESC LIMIT ?)',
    ).run(TRAFFIC_KEPT_RUNS);
  })();
}

/** The traffic of the given runs that have one. */
export function readRunTraffic(db: Database.Database, runIds: readonly string[]): Map<string, RunTraffic> {
  const get = db.prepare<[string], Omit<RunTraffic, 'windows'> & { windows_json: string }>(
    'SELECT * FROM run_traffic WHERE run_id = ?',
  );
  const out = new Map<string, RunTraffic>();
  for (const id of runIds) {
    const row = get.get(id);
    if (!row) continue;
    const { windows_json, ...rest } = row;
    const pairs = JSON.parse(windows_json) as Array<[number, number]>;
    out.set(id, { ...rest, windows: pairs.map(([requests, rate_limited]) => ({ requests, rate_limited })) });
  }
  return out;
}
