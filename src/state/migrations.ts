import type Database from 'better-sqlite3';
import { StateError } from '../errors.js';
import { packConversationState } from './pack-conversation-state.js';

export interface Migration {
  /** 1, 2, 3…: `PRAGMA user_version` after it ran. Never renumber or edit a released one. */
  version: number;
  description: string;
  up: string | ((db: Database.Database) => void);
}

/**
 * The state schema, one numbered step at a time (docs/state.md). A step is
 * appended, never edited: a database remembers how far it got in user_version.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, committed key-value state, checkpoints, files, pending state changes',
    up: `
      CREATE TABLE runs (
        run_id         TEXT PRIMARY KEY,
        started_at     TEXT NOT NULL,
        finished_at    TEXT,
        status         TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed', 'aborted', 'crashed')),
        manifest_state TEXT CHECK (manifest_state IN ('writing', 'written')),
        summary_json   TEXT
      );
      CREATE TABLE kv_state (
        scope TEXT NOT NULL,
        key   TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      ) WITHOUT ROWID;
      CREATE TABLE checkpoints (
        checkpoint_id INTEGER PRIMARY KEY,
        run_id        TEXT NOT NULL REFERENCES runs (run_id),
        status        TEXT NOT NULL CHECK (status IN ('pending', 'committed', 'superseded')),
        created_at    TEXT NOT NULL,
        resolved_at   TEXT
      );
      CREATE INDEX checkpoints_pending ON checkpoints (status) WHERE status = 'pending';
      CREATE TABLE files (
        key             TEXT PRIMARY KEY,
        checkpoint_id   INTEGER NOT NULL REFERENCES checkpoints (checkpoint_id),
        run_id          TEXT NOT NULL,
        table_name      TEXT NOT NULL,
        kind            TEXT NOT NULL CHECK (kind IN ('data', 'rejected')),
        rows            INTEGER NOT NULL,
        bytes           INTEGER NOT NULL,
        sha256          TEXT NOT NULL,
        schema_version  TEXT NOT NULL,
        spool_path      TEXT,
        status          TEXT NOT NULL CHECK (status IN ('pending', 'committed', 'superseded', 'deleted')),
        committed_at    TEXT,
        manifest_run_id TEXT
      );
      CREATE INDEX files_checkpoint ON files (checkpoint_id);
      CREATE INDEX files_unlisted ON files (status, manifest_run_id);
      CREATE TABLE pending_state (
        checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (checkpoint_id),
        ord           INTEGER NOT NULL,
        scope         TEXT NOT NULL,
        key           TEXT NOT NULL,
        value         TEXT,
        PRIMARY KEY (checkpoint_id, ord)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: 'remote ids of resources managed as code (hours and holidays)',
    up: `
      CREATE TABLE IF NOT EXISTS push_resources (
        kind         TEXT NOT NULL CHECK (kind IN ('business_hours', 'holiday')),
        key          TEXT NOT NULL,
        remote_id    TEXT NOT NULL,
        applied_hash TEXT NOT NULL,
        applied_at   TEXT NOT NULL,
        PRIMARY KEY (kind, key)
      );
    `,
  },
  {
    version: 3,
    description: "each run's requests per rate window (the status page's chart)",
    // Self-contained (IF NOT EXISTS, no other table touched), so its number may move.
    up: `
      CREATE TABLE IF NOT EXISTS run_traffic (
        run_id           TEXT PRIMARY KEY,
        window_ms        INTEGER NOT NULL,
        window_source    TEXT NOT NULL,
        limit_per_window INTEGER NOT NULL,
        windows_json     TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    description: 'per-conversation state (fingerprints, thread hashes) in tables of its own, packed',
    up: packConversationState,
  },
];

/** The schema version this binary writes. */
export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Brings a database to LATEST_VERSION, each step in its own transaction together
 * with its user_version bump, so a crash mid-migration leaves the previous version.
 * A database from a newer binary is refused rather than misread.
 */
export function runMigrations(db: Database.Database, path: string, migrations = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new StateError(
      `state database ${path} has schema version ${current}, newer than this binary knows (${latest}); upgrade helpdesk-sync or use another state file`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      // Read again under the write lock: commands that only read (check, plan, verify, state
      // show) open the state without the run lock, so another connection may have run this
      // step since the read above.
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return latest;
}
