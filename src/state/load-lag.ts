import type Database from 'better-sqlite3';
import type { LoadRecord } from './load-records.js';

/** A manifest as the state knows it: its run, and when the state confirmed it written. */
export interface CommittedManifest {
  run_id: string;
  finished_at: string;
}

/** How far a target's loads are behind the manifests this state committed. */
export interface LoadLag {
  /** Committed manifests not loaded yet (as far as the last load tells). */
  manifests: number;
  /** The newest manifest the state committed; absent when it committed none. */
  newest_committed?: CommittedManifest;
  /** The newest of them loaded; absent when none is known loaded. */
  newest_loaded?: CommittedManifest;
}

/**
 * The lag of one target behind this state's manifests (runs whose manifest is
 * `written`), from the target's last load record alone, without opening the
 * target. A manifest counts as loaded when the state confirmed it before the
 * listing load began (so the load listed it) and the load did not leave it waiting.
 * One confirmed while the load ran counts as not loaded until the next load
 * says otherwise: the lag errs towards "behind", never towards "up to date".
 * Without a record, every committed manifest is behind.
 */
export function readLoadLag(db: Database.Database, record: LoadRecord | undefined): LoadLag {
  const newest = db
    .prepare<[], CommittedManifest>(
      `SELECT run_id, finished_at FROM runs WHERE manifest_state = 'written' AND finished_at IS NOT NULL
       ORDER BY finished_at DESC, run_id DESC LIMIT 1`,
    )
    .get();
  if (!record) {
    const { n } = db
      .prepare<[], { n: number }>("SELECT count(*) AS n FROM runs WHERE manifest_state = 'written'")
      .get() as { n: number };
    return { manifests: n, ...(newest ? { newest_committed: newest } : {}) };
  }
  const waiting = JSON.stringify(record.waiting);
  const behind = `manifest_state = 'written' AND (finished_at IS NULL OR finished_at > ? OR run_id IN (SELECT value FROM json_each(?)))`;
  const { n } = db
    .prepare<[string, string], { n: number }>(`SELECT count(*) AS n FROM runs WHERE ${behind}`)

    .get(record.listed_at, waiting) as { n: number };
  const loaded = db
    .prepare<[string, string], CommittedManifest>(
      `SELECT run_id, finished_at FROM runs WHERE manifest_state = 'written' AND NOT (${behind})
       ORDER BY finished_at DESC, run_id DESC LIMIT 1`,
    )
    .get(record.listed_at, waiting);
  return {
    manifests: n,
    ...(newest ? { newest_committed: newest } : {}),
    ...(loaded ? { newest_loaded: loaded } : {}),
  };
}
