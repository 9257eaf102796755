import { STREAM_NAMES, type StreamName } from '../config/schema.js';
import type { StateDb } from './database.js';
import { createKvStore } from './kv-store.js';

/**
 * The kv_state scopes a stream owns: whole scopes, and prefixes of scopes kept one
 * per inbox. The streams define them (streams/scopes.ts); the caller passes them in,
 * since the state layer knows nothing of streams.
 */
export type ScopesOf = (stream: StreamName) => {
  scopes: readonly string[];
  prefixes: readonly string[];
  /** What `state show` counts: one scope's keys, or the keys of the scopes under a prefix, in `unit`. */
  counted: { scope: string; unit: string } | { prefix: string; unit: string };
};

export interface StreamStateLine {
  stream: StreamName;
  /** What the stream remembers, in `unit` (conversations, threads, inbox-days, …). */
  count: number;
  unit: string;
  /** For a stream counted over scopes under a prefix (reports): the latest key, the latest day pulled. */
  latest?: string;
}

export interface StateOverview {
  path: string;
  schemaVersion: number;
  streams: StreamStateLine[];
  lastRun?: { run_id: string; status: string; started_at: string; finished_at: string | null };
  unlistedFiles: number;
}

// Prefixes compare with substr, not LIKE: scope names hold `_`, a LIKE wildcard.
const UNDER_PREFIX = 'substr(scope, 1, length(?)) = ?';

/** What `state show` prints: per stream how much it remembers, and the last run. */
export function describeState(state: StateDb, scopesOf: ScopesOf): StateOverview {
  const { db } = state;
  const store = createKvStore(state);
  const streams = STREAM_NAMES.map((stream): StreamStateLine => {
    const { counted } = scopesOf(stream);
    if ('scope' in counted) return { stream, count: store.count(counted.scope), unit: counted.unit };
    const row = db
      .prepare(`SELECT COUNT(*) AS n, MAX(key) AS latest FROM kv_state WHERE ${UNDER_PREFIX}`)
      .get(counted.prefix, counted.prefix) as { n: number; latest: string | null };
    const line: StreamStateLine = { stream, count: row.n, unit: counted.unit };
    return 'prefix' in counted && row.latest ? { ...line, latest: row.latest } : line;
  });
  // A run stopped by SIGINT/SIGTERM, and a partial one, still commit and write their manifest
  // (status `finished`); the summary says `interrupted` or `partial`, and that is what a reader needs to see.
  const lastRun = db
    .prepare(
      `SELECT run_id, started_at, finished_at,
         CASE WHEN status = 'finished' AND json_extract(summary_json, '$.status') IN ('interrupted', 'partial')
              THEN json_extract(summary_json, '$.status') ELSE status END AS status
       FROM runs ORDER BY started_at DESC, run_id DESC LIMIT 1`,
    )
    .get() as StateOverview['lastRun'];
  const unlisted = db
    .prepare("SELECT COUNT(*) AS n FROM files WHERE status = 'committed' AND manifest_run_id IS NULL")
    .get() as { n: number };
  return { path: state.path, schemaVersion: state.version, streams, lastRun, unlistedFiles: unlisted.n };
}

/**
 * `state reset [--stream s]`: forgets what the streams remember, so the next run
 * writes every row again (a full refresh that also persists). Files, runs and
 * manifests are kept: they describe output that exists.
 */
export function resetState(state: StateDb, scopesOf: ScopesOf, streams: readonly StreamName[] = STREAM_NAMES): number {
  let removed = 0;
  const store = createKvStore(state);
  const underPrefix = state.db.prepare(`DELETE FROM kv_state WHERE ${UNDER_PREFIX}`);
  state.db.transaction(() => {
    for (const stream of streams) {
      const { scopes, prefixes } = scopesOf(stream);
      for (const scope of scopes) removed += store.clear(scope);
      for (const prefix of prefixes) removed += underPrefix.run(prefix, prefix).changes;
    }
  })();
  return removed;
}

/**
 * Every output key this state ever put in its sink (data and rejected files, in
 * any status) and the runs that wrote a manifest or began to: what a clean-up of
 * this state's own output may delete, and nothing else.
 */
export function keysWrittenByState(state: StateDb): { fileKeys: string[]; runIds: string[] } {
  const fileKeys = state.db.prepare('SELECT key FROM files').pluck().all() as string[];
  const runIds = state.db.prepare('SELECT run_id FROM runs WHERE manifest_state IS NOT NULL').pluck().all() as string[];
  return { fileKeys, runIds };
}

/** What a run's status means for the next run, in `state show`. */
const RUN_NOTES: Record<string, string> = {
  interrupted: 'stopped by a signal: what was complete is committed, the next run resumes',
  partial: "some part failed (its summary's failed_streams): what could commit is committed, the next run retries it",
  failed: 'what committed before the failure is kept; the next run resumes',
  aborted: 'its pending work was discarded; the next run re-extracts it',
  crashed: 'killed; the next run recovered or recovers what it left',
};

export function formatStateOverview(o: StateOverview): string {
  const lines = [`state ${o.path} (schema ${o.schemaVersion})`];
  lines.push(
    o.lastRun
      ? `last run ${o.lastRun.run_id}: ${o.lastRun.status}, started ${o.lastRun.started_at}, ` +
          `${o.lastRun.status === 'running' ? 'still running or killed' : `ended ${o.lastRun.finished_at ?? '-'}`}` +
          (RUN_NOTES[o.lastRun.status] ? ` (${RUN_NOTES[o.lastRun.status]})` : '')
      : 'no run yet',
  );
  lines.push('remembered, per stream (what the next run compares against):');
  for (const s of o.streams) {
    lines.push(
      `  ${s.stream.padEnd(15)} ${String(s.count).padStart(8)} ${s.unit}${s.latest ? `  latest day ${s.latest}` : ''}`,
    );
  }
  if (o.unlistedFiles > 0) lines.push(`${o.unlistedFiles} committed file(s) wait for the next manifest`);
  return lines.join('\n');
}

/** A committed data file as `verify --output` reads it back. */
export interface CommittedFile {
  key: string;
  table_name: string;
  rows: number;
  bytes: number;
}

/** Every committed data file, oldest run first (a later file's row is the newer one on a tie). */
export function committedDataFiles(state: StateDb): CommittedFile[] {
  return state.db
    .prepare<[], CommittedFile>(
      "SELECT key, table_name, rows, bytes FROM files WHERE status = 'committed' AND kind = 'data' ORDER BY run_id, key",
    )
    .all();
}

/** Every committed file of rejected records (`_rejected/`), oldest run first. */
export function committedRejectedFiles(state: StateDb): CommittedFile[] {
  return state.db
    .prepare<[], CommittedFile>(
      "SELECT key, table_name, rows, bytes FROM files WHERE status = 'committed' AND kind = 'rejected' ORDER BY run_id, key",
    )
    .all();
}

/** When the latest finished sync run started: what it listed was current then. */
export function lastFinishedRunStart(state: StateDb): string | undefined {
  const row = state.db
    .prepare<[], { started_at: string }>(
      "SELECT started_at FROM runs WHERE status = 'finished' ORDER BY started_at DESC, run_id DESC LIMIT 1",
    )
    .get();
  return row?.started_at;
}

/** The kv_state scopes whose name starts with `prefix` (report days: one scope per inbox). */
export function scopesWithPrefix(state: StateDb, prefix: string): string[] {
  return state.db
    .prepare<[string, string], { scope: string }>(
      `SELECT DISTINCT scope FROM kv_state WHERE ${UNDER_PREFIX} ORDER BY scope`,
    )
    .all(prefix, prefix)
    .map((r) => r.scope);
}
