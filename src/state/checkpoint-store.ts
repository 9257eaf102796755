import type { StateChange } from '../kv-state.js';
import type { ListedFile } from '../output/manifest.js';
import type { StateDb } from './database.js';
import { createKvStore } from './kv-store.js';

/** A file as the state database records it: what a manifest lists, and where its spool copy is. */
export interface FileRecord extends ListedFile {
  /** Where the closed spool file was, so recovery can upload it if the sink lacks it. */
  spool_path: string | null;
}

export interface StoredFile extends FileRecord {
  checkpoint_id: number;
  status: 'pending' | 'committed' | 'superseded' | 'deleted';
  committed_at: string | null;
  manifest_run_id: string | null;
}

/**
 * The commit protocol's bookkeeping (docs/architecture.md and docs/state.md). A checkpoint is first
 * recorded as pending (its files and its staged state changes, one transaction),
 * then its files are uploaded, then commit() marks the files committed and
 * applies the state changes in ONE transaction. State therefore never runs ahead
 * of durable output: a crash in between leaves a pending checkpoint for recovery.
 */
export function createCheckpointStore(state: StateDb) {
  const { db } = state;
  const insertCheckpoint = db.prepare(
    "INSERT INTO checkpoints (run_id, status, created_at) VALUES (?, 'pending', ?) RETURNING checkpoint_id",
  );
  const insertFile = db.prepare(
    `INSERT INTO files (key, checkpoint_id, run_id, table_name, kind, rows, bytes, sha256, schema_version, spool_path, status)
     VALUES (@key, @checkpoint_id, @run_id, @table_name, @kind, @rows, @bytes, @sha256, @schema_version, @spool_path, 'pending')`,
  );
  const insertChange = db.prepare(
    'INSERT INTO pending_state (checkpoint_id, ord, scope, key, value) VALUES (?, ?, ?, ?, ?)',
  );
  const kv = createKvStore(state);
  const pendingChanges = db.prepare<[number], StateChange>(
    'SELECT scope, key, value FROM pending_state WHERE checkpoint_id = ? ORDER BY ord',
  );
  const dropChanges = db.prepare('DELETE FROM pending_state WHERE checkpoint_id = ?');
  const setCheckpoint = db.prepare(
    "UPDATE checkpoints SET status = ?, resolved_at = ? WHERE checkpoint_id = ? AND status = 'pending'",
  );
  const commitFiles = db.prepare(
    "UPDATE files SET status = 'committed', committed_at = ?, spool_path = NULL WHERE checkpoint_id = ? AND status = 'pending'",
  );
  const supersedeFiles = db.prepare(
    "UPDATE files SET status = 'superseded' WHERE checkpoint_id = ? AND status = 'pending'",
  );
  const filesOf = db.prepare<[number], StoredFile>('SELECT * FROM files WHERE checkpoint_id = ? ORDER BY key');
  const pending = db.prepare<[], { checkpoint_id: number; run_id: string }>(
    "SELECT checkpoint_id, run_id FROM checkpoints WHERE status = 'pending' ORDER BY checkpoint_id",
  );
  const superseded = db.prepare<[], StoredFile>("SELECT * FROM files WHERE status = 'superseded' ORDER BY key");
  const lastCheckpoint = db.prepare<[], number | null>('SELECT max(checkpoint_id) FROM checkpoints').pluck();
  const markDeleted = db.prepare("UPDATE files SET status = 'deleted', spool_path = NULL WHERE key = ?");

  function apply(changes: Iterable<StateChange>): void {
    for (const c of changes) {
      if (c.value === null) kv.remove(c.scope, c.key);
      else kv.put(c.scope, c.key, c.value);
    }
  }

  return {
    /** Records a checkpoint's files and staged changes as pending; returns its id. */
    recordPending: db.transaction(
      (runId: string, createdAt: string, files: readonly FileRecord[], changes: readonly StateChange[]): number => {
        const { checkpoint_id } = insertCheckpoint.get(runId, createdAt) as { checkpoint_id: number };
        for (const file of files) insertFile.run({ ...file, checkpoint_id });
        changes.forEach((c, i) => {
          insertChange.run(checkpoint_id, i, c.scope, c.key, c.value);
        });
        return checkpoint_id;
      },
    ),
    /** Files durable in the sink: mark them committed and apply the staged changes, atomically. */
    commit: db.transaction((checkpointId: number, at: string): void => {
      if (setCheckpoint.run('committed', at, checkpointId).changes !== 1) return;
      commitFiles.run(at, checkpointId);
      apply(pendingChanges.all(checkpointId));
      dropChanges.run(checkpointId);
    }),
    /** Gives a checkpoint up: its changes are dropped, its files are to be deleted from the sink. */
    supersede: db.transaction((checkpointId: number, at: string): void => {
      if (setCheckpoint.run('superseded', at, checkpointId).changes !== 1) return;
      supersedeFiles.run(checkpointId);
      dropChanges.run(checkpointId);
    }),
    /** State changes that belong to no file: nothing to wait for, applied at once. */
    applyNow: db.transaction((changes: readonly StateChange[]): void => apply(changes)),
    filesOf: (checkpointId: number): StoredFile[] => filesOf.all(checkpointId),
    pending: () => pending.all(),
    /** Files of superseded checkpoints still to be removed from the sink. */
    superseded: (): StoredFile[] => superseded.all(),
    /** The newest checkpoint's id (0 when none): it tells one copy of the state from an older one. */
    lastCheckpointId: (): number => lastCheckpoint.get() ?? 0,
    markDeleted: (key: string): void => {
      markDeleted.run(key);
    },
  };
}

export type CheckpointStore = ReturnType<typeof createCheckpointStore>;
